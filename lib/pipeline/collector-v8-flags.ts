// V8's flags for the process that runs the cycle pipeline: role all's collector child (collector-process.ts spawns
// it with them), role collector's server (the Helm chart's collector.nodeOptions puts them in NODE_OPTIONS) and the
// bench's phase 5 and 7 children (scripts/bench/result-child.ts), so the bench measures what operators run.
//
// MEASURED_REASON

/** The flags, each `--name=value`. */
export const collectorV8Flags: readonly string[] = ["--max-semi-space-size=64"];

/** A flag's name as V8 reads it: `--max_semi_space_size=8` and `--max-semi-space-size=8` are the same flag. */
function flagName(flag: string): string {
  return flag.split("=", 1)[0]!.replaceAll("_", "-");
}

/**
 * The collector's flags that `nodeOptions` (the operator's NODE_OPTIONS) does not set. Node's command line wins over
 * NODE_OPTIONS, so a flag the operator set there must not be passed again on the command line: theirs wins.
 */
export function collectorV8Args(nodeOptions: string | undefined): string[] {
  const theirs = new Set((nodeOptions ?? "").split(/\s+/).filter((word) => word.startsWith("--")).map(flagName));
  return collectorV8Flags.filter((flag) => !theirs.has(flagName(flag)));
}

/** NODE_OPTIONS for a child that runs the pipeline: the collector's flags first, so the operator's, later, win. */
export function withCollectorNodeOptions(nodeOptions: string | undefined): string {
  return [...collectorV8Args(nodeOptions), nodeOptions ?? ""].join(" ").trim();
}
