import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAlertService } from "@/lib/alerts/alert-service";
import { parseConfigText } from "@/lib/config";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { createSqliteStore, type Store } from "@/lib/store";
import { makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
const history = { offsetSyncs: new Map() };

/** MM2 has copied everything below 1200; `logStart` 1700 means records 1200–1699 were deleted before it copied them. */
const cycleWith = (cycle: number, logStart: bigint) =>
  makeSnapshot({
    cycle,
    partitions: [makeFlowPartition({ sourceLogStart: logStart, sourceLogEnd: 2000n, mm2Position: 1200n, targetLogEnd: 5200n, latestSync: { upstream: 1199n, downstream: 5199n } })],
  });

let dir: string;
const stores: Store[] = [];

function openStore(): Store {
  dir ??= mkdtempSync(path.join(os.tmpdir(), "gapwatch-pipeline-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
}

function createPipeline(store: Store) {
  const alerts = createAlertService(store, config);
  return { alerts, pipeline: new CyclePipeline(config, store, alerts) };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined as unknown as string;
});

describe("CyclePipeline", () => {
  it("turns a purge into a firing DATA_LOSS in the read model, the store and the samples, in one cycle", async () => {
    const store = openStore();
    const { pipeline } = createPipeline(store);
    expect(pipeline.latest()).toBeNull();
    const first = cycleWith(1, 1000n);
    await pipeline.processCycle(first, null, history);
    const second = cycleWith(2, 1700n);
    const model = await pipeline.processCycle(second, first, history);

    expect(model.snapshot).toBe(second);
    expect(pipeline.latest()).toBe(model);
    expect([...model.translations.keys()]).toEqual(["east->west"]);
    expect(model.alerts.map((a) => [a.type, a.state, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount])).toEqual([
      ["DATA_LOSS", "firing", "1200", "1699", "500"],
    ]);
    expect((await store.loadAlerts()).map((a) => [a.type, a.state])).toEqual([["DATA_LOSS", "firing"]]);
    expect((await store.listEvents(0, T0 + 60_000, 10)).map((e) => e.kind)).toEqual(["alert-fired"]);
    const samples = await store.readPartitionHistory("east->west", "orders", 2, 0, T0 + 60_000);
    expect(samples.map((s) => [s.at - T0, s.sourceLogStart, s.mm2Position])).toEqual([
      [0, 1000n, 1200n],
      [10_000, 1700n, 1200n],
    ]);
  });

  it("continues after a restart on the same store: the alert stays firing and is not fired again", async () => {
    const store = openStore();
    const before = createPipeline(store);
    const first = cycleWith(1, 1000n);
    await before.pipeline.processCycle(first, null, history);
    const second = cycleWith(2, 1700n);
    await before.pipeline.processCycle(second, first, history);
    before.alerts.stop();

    const after = createPipeline(store);
    const third = cycleWith(3, 1700n);
    const model = await after.pipeline.processCycle(third, null, history);
    expect(model.alerts.map((a) => [a.type, a.state, a.evidence.lostCount])).toEqual([["DATA_LOSS", "firing", "500"]]);
    expect((await store.listEvents(0, T0 + 60_000, 10)).map((e) => e.kind)).toEqual(["alert-fired"]);
    after.alerts.stop();
  });
  it("persists the detector memory as entries, a cycle writing only those that changed, never as one JSON value", async () => {
    const store = openStore();
    const saved: string[][] = [];
    const counting: Store = {
      ...store,
      saveDetectorMemoryEntries: async (changes) => {
        saved.push(changes.map((c) => c.key));
        await store.saveDetectorMemoryEntries(changes);
      },
    };
    const { pipeline } = createPipeline(counting);
    const first = cycleWith(1, 1000n);
    const second = cycleWith(2, 1700n);
    const third = cycleWith(3, 1700n);
    await pipeline.processCycle(first, null, history);
    await pipeline.processCycle(second, first, history);
    await pipeline.processCycle(third, second, history);
    // Cycle 1 writes MM2's committed mark, as its flow's chunk rows of numbers, keys and texts (and that the checkpoint watch, empty, is kept as entries); cycle 2 the loss event and the stall mark (the position stood still a
    // cycle); cycle 3 only the event again (its last-seen time) — the unchanged marks are not rewritten.
    const key = "east->west|orders|2";
    expect(saved).toEqual([
      ["cycle-at", "committed-marks|east->west|0", "committed-marks-keys|east->west|0", "committed-marks-texts|east->west|0", "watch-entries"],
      ["cycle-at", `event|DATA_LOSS|${key}|1200`, `stall|${key}`],
      ["cycle-at", `event|DATA_LOSS|${key}|1200`],
    ]);
    expect(await store.getValue("detector-memory")).toBeNull();
    expect((await store.loadDetectorMemoryEntries()).find(([key]) => key === "cycle-at")).toEqual(["cycle-at", String(third.takenAt)]);
  });
});
