/**
 * The synthetic world (the bench's, scripts/bench/synthetic-world.ts) run through a CyclePipeline with a SQLite
 * store, as production runs it: the setup the pipeline tests share.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAlertService } from "@/lib/alerts/alert-service";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createSqliteStore } from "@/lib/store";
import { readSnapshotFixture } from "@/scripts/bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "@/scripts/bench/synthetic-world";

/** One cycle of the world: its snapshot, and the pipeline's run over it (called once, by the test). */
export interface SyntheticCycle {
  cycle: number;
  current: Snapshot;
  process(): Promise<ReadModel>;
}

/**
 * Runs `cycles` cycles of a 2,000-partition world, handing each to `each`; the store lives in a temporary folder
 * removed afterwards, and the alert service is stopped whatever `each` throws.
 */
export async function runSyntheticPipeline(cycles: number, each: (cycle: SyntheticCycle) => Promise<void>): Promise<void> {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", 2_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-synthetic-pipeline-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  const config = configSchema.parse({
    clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
    pollIntervalSeconds: cycleMs / 1000,
    store: { kind: "sqlite" },
  });
  const alerts = createAlertService(store, config);
  const pipeline = new CyclePipeline(config, store, alerts);
  let previous: Snapshot | null = null;
  try {
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const current = snapshotCycle(world, cycle, world.base.takenAt + cycle * cycleMs, previous);
      const before = previous;
      await each({ cycle, current, process: () => pipeline.processCycle(current, before, { offsetSyncs: world.syncs }) });
      previous = current;
    }
  } finally {
    alerts.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
