import type { Snapshot } from "@/lib/collector/types";
import { type GapwatchConfig } from "@/lib/config";
import { configSchema } from "@/lib/config/schema";
import { CycleRecorder } from "@/lib/pipeline/cycle-recording";
import { readSnapshotFixture } from "../bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "../bench/synthetic-world";

const flowId = "east->west";

/**
 * Writes `cycles` cycles of the bench's synthetic world (scripts/bench/synthetic-world.ts: a real sandbox snapshot
 * scaled to about `partitions` flow partitions, with lagging partitions, one stalled partition whose unreplicated
 * records are deleted, groups and checkpoints) to `file` as the collector would record them, and returns the
 * config those cycles are judged with. Generated once, the same cycles can be replayed any number of times.
 */
export function recordSyntheticCycles(file: string, partitions: number, cycles: number): GapwatchConfig {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history = { offsetSyncs: world.syncs };
  const recorder = new CycleRecorder(file);
  let previous: Snapshot | null = null;
  for (let c = 1; c <= cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const current = snapshotCycle(world, c, now, previous);
    recorder.record(current, previous, history);
    previous = current;
  }
  return configSchema.parse({
    clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
    pollIntervalSeconds: cycleMs / 1000,
    store: { kind: "sqlite" },
  });
}
