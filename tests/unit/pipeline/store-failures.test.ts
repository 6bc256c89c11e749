import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

/** A SQLite store whose calls fail while `down` is true (a PostgreSQL server that is unreachable for a while). */
function flaky(store: Store): Store & { down: boolean } {
  const wrapped = { down: false } as Store & { down: boolean };
  for (const name of Object.keys(store) as (keyof Store)[]) {
    const call = store[name] as (...args: unknown[]) => Promise<unknown>;
    Object.assign(wrapped, { [name]: (...args: unknown[]) => (wrapped.down && name !== "close" ? Promise.reject(new Error("connection refused")) : call(...args)) });
  }
  return wrapped;
}

let dir: string;
let store: Store & { down: boolean };

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-flaky-"));
  store = flaky(createSqliteStore(path.join(dir, "gapwatch.db")));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the pipeline with a store that fails", () => {
  it("still raises an alert when the cycle's writes fail, and stores it with the next cycle, without firing it again", async () => {
    const alerts = createAlertService(store, config);
    const pipeline = new CyclePipeline(config, store, alerts);
    const first = cycleWith(1, 1000n);
    await pipeline.processCycle(first, null, history);
    store.down = true;
    const second = cycleWith(2, 1700n);
    const failed = await pipeline.processCycle(second, first, history);
    expect(failed.alerts.map((a) => [a.type, a.state, a.evidence.lostCount])).toEqual([["DATA_LOSS", "firing", "500"]]);
    store.down = false;
    const third = cycleWith(3, 1700n);
    const model = await pipeline.processCycle(third, second, history);
    expect(model.alerts.map((a) => [a.type, a.state])).toEqual([["DATA_LOSS", "firing"]]);
    expect((await store.loadAlerts()).map((a) => [a.type, a.state])).toEqual([["DATA_LOSS", "firing"]]);
    // The transition happened while the store was down: its timeline event is the one thing lost.
    expect(await store.listEvents(0, T0 + 60_000, 10)).toEqual([]);
    alerts.stop();
  });

  it("judges no cycle before the stored alerts are read, and then continues them instead of firing again", async () => {
    const before = createAlertService(store, config);
    await new CyclePipeline(config, store, before).processCycle(cycleWith(1, 1000n), null, history);
    await new CyclePipeline(config, store, before).processCycle(cycleWith(2, 1700n), cycleWith(1, 1000n), history);
    before.stop();

    store.down = true;
    const after = createAlertService(store, config);
    const pipeline = new CyclePipeline(config, store, after);
    await expect(pipeline.processCycle(cycleWith(3, 1700n), null, history)).rejects.toThrow("connection refused");
    expect(pipeline.latest()).toBeNull();
    store.down = false;
    const model = await pipeline.processCycle(cycleWith(4, 1700n), null, history);
    expect(model.alerts.map((a) => [a.type, a.state, a.firstSeen - T0])).toEqual([["DATA_LOSS", "firing", 10_000]]);
    expect((await store.listEvents(0, T0 + 60_000, 10)).map((e) => e.kind)).toEqual(["alert-fired"]);
    after.stop();
  });
});
