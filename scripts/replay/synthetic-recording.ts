import type { Snapshot } from "@/lib/collector/types";
import { type GapwatchConfig } from "@/lib/config";
import { configSchema } from "@/lib/config/schema";
import { CycleRecorder, type RecordedCycle } from "@/lib/pipeline/cycle-recording";
import { readSnapshotFixture } from "../bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "../bench/synthetic-world";

const flowId = "east->west";

/** The cycles of a synthetic world, and the config they are judged with. */
export interface SyntheticCycles {
  config: GapwatchConfig;
  cycles: Iterable<RecordedCycle>;
}

/**
 * `cycles` cycles of the bench's synthetic world (scripts/bench/synthetic-world.ts: a real sandbox snapshot scaled to
 * about `partitions` flow partitions, with lagging partitions, one stalled partition whose unreplicated records are
 * deleted, groups and checkpoints), each made when the replay asks for it, as the collector hands its cycles to the
 * pipeline: flows built by buildFlow, read through their typed-array rows (a recording read back gives plain objects
 * instead). Deterministic: the same cycles every time.
 */
export function synthesizeCycles(partitions: number, cycles: number): SyntheticCycles {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history = { offsetSyncs: world.syncs };
  function* generate(): Generator<RecordedCycle> {
    let previous: Snapshot | null = null;
    for (let c = 1; c <= cycles; c++) {
      const current = snapshotCycle(world, c, world.base.takenAt + c * cycleMs, previous);
      yield { current, previous, history };
      previous = current;
    }
  }
  const config = configSchema.parse({
    clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
    pollIntervalSeconds: cycleMs / 1000,
    store: { kind: "sqlite" },
  });
  return { config, cycles: generate() };
}

/**
 * Writes a synthetic world's cycles (synthesizeCycles) to `file` as the collector would record them, and returns the
 * config those cycles are judged with. Generated once, the same cycles can be replayed any number of times.
 */
export function recordSyntheticCycles(file: string, partitions: number, cycles: number): GapwatchConfig {
  const synthetic = synthesizeCycles(partitions, cycles);
  const recorder = new CycleRecorder(file);
  for (const { current, previous, history } of synthetic.cycles) recorder.record(current, previous, history);
  return synthetic.config;
}
