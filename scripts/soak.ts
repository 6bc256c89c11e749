// `npm run soak -- --minutes N [--seed S] [--ci]`: the chaos soak. Runs its own sandbox (two clusters,
// Connect, MM2), the demo's workload, a transactional producer and Gapwatch's runtime in-process
// with short thresholds; replays benign events and real faults at random (seeded), and matches
// every alert raised against what each event must raise. Prints a table, writes JSON to
// <home>/soak/, exits non-zero on any false or missed alert. `--ci` runs the stall, checkpoint and
// retention events first, so that a 5-minute run meets each of them (docs/development.md).
import path from "node:path";

// lib/sandbox/paths.ts reads GAPWATCH_HOME at import time: set it before anything imports it, so
// the soak never touches the demo's or the tests' .gapwatch/sandbox.
process.env.GAPWATCH_HOME ??= path.resolve(import.meta.dirname, "..", ".gapwatch", "soak-home");
process.env.GAPWATCH_LOG_LEVEL ??= "warn";

void import("./soak/main")
  .then(({ runSoak }) => runSoak(process.argv.slice(2)))
  .then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
