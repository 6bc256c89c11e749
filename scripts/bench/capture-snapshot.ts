// Captures bench/fixtures/sandbox-snapshot.json, the real snapshot the compute benchmark
// (pipeline-compute.ts) scales to 100,000 partitions. Run against a sandbox with its workload:
//   npm run sandbox -- up && npm run sandbox -- workload   (let it run a minute, in another shell)
//   node_modules/.bin/tsx scripts/bench/capture-snapshot.ts [--cycles 6]
import { readSandboxState } from "@/lib/sandbox/state";
import { parseFlags } from "../args";
import { createBenchCollector } from "./bench-collector";
import { sandboxFixturePath, writeSnapshotFixture } from "./snapshot-fixture";

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const cycles = Number(flags.cycles ?? 6);
  const state = readSandboxState();
  const collector = createBenchCollector(state);
  try {
    // Several cycles 5 s apart, so positions, offset syncs and checkpoints have all been read.
    for (let c = 1; c <= cycles; c++) {
      await collector.runCycle();
      if (c < cycles) await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    const snapshot = collector.latest();
    if (snapshot === null) throw new Error("the collector produced no snapshot");
    writeSnapshotFixture(sandboxFixturePath, state.kafkaVersion, snapshot, collector.history());
    const partitions = snapshot.flows.map((f) => `${f.id}: ${f.partitions.length} partitions, ${f.checkpoints.length} checkpoints`).join("; ");
    process.stdout.write(`wrote ${sandboxFixturePath} (${partitions})\n`);
  } finally {
    await collector.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`capture failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
