import path from "node:path";

/** Repository root: lib/sandbox/ is two levels below it. */
export const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/** Everything the sandbox writes lives under .gapwatch/ (gitignored). */
export const gapwatchDir = process.env.GAPWATCH_HOME ?? path.join(repoRoot, ".gapwatch");
export const sandboxDir = path.join(gapwatchDir, "sandbox");
export const stateFile = path.join(sandboxDir, "state.json");
export const pidDir = path.join(sandboxDir, "pids");

/** Where the resolved jars of one Kafka version are cached. */
export function jarsDirFor(version: string): string {
  return path.join(gapwatchDir, "kafka", version, "jars");
}
