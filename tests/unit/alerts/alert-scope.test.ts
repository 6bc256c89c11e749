import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownerOfFindingKey, ownerOfMemoryEntry } from "@/lib/alerts/alert-scope";
import { createAlertService } from "@/lib/alerts/alert-service";
import { ShardAssignment, shardOf } from "@/lib/collector/shards";
import { parseConfigText } from "@/lib/config";
import { createSqliteStore, type Store } from "@/lib/store";
import { makeFlowPartition, makeSnapshot } from "../detect/fixtures";

const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
const history = { offsetSyncs: new Map() };
/** With 4 shards: the flow east->west and the cluster west are on shard 1, east on 2, Connect's connect-1 on 3. */
const SHARDS = 4;

/** MM2 has copied everything below 1200; `logStart` 1700 means records 1200–1699 were deleted before it copied them. */
const cycleWith = (cycle: number, logStart: bigint) =>
  makeSnapshot({
    cycle,
    partitions: [makeFlowPartition({ sourceLogStart: logStart, sourceLogEnd: 2000n, mm2Position: 1200n, targetLogEnd: 5200n, latestSync: { upstream: 1199n, downstream: 5199n } })],
  });
/** What a collector that does not hold the flow's shard sees: the clusters and Connect, no flow. */
const withoutFlow = (cycle: number) => ({ ...cycleWith(cycle, 1700n), flows: [] });

let dir: string | undefined;
const stores: Store[] = [];

function openStore(): Store {
  dir ??= mkdtempSync(path.join(os.tmpdir(), "gapwatch-scope-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
}

function holding(shards: number[]): ShardAssignment {
  const assignment = new ShardAssignment(SHARDS);
  assignment.update(shards);
  assignment.beginCycle();
  return assignment;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("ownership of keys", () => {
  it("names the flow, cluster or Connect cluster of finding keys and memory entries", () => {
    expect(["east->west", "west", "east", "connect-1"].map((k) => shardOf(k, SHARDS))).toEqual([1, 1, 2, 3]);
    expect(
      ["DATA_LOSS|east->west|orders|2|1200", "UNDER_REPLICATED|east|orders", "COMMIT_WITHOUT_LEADER_EPOCH|east|a->b", "TASK_FAILED|connect-1|mm2-source|0"].map(ownerOfFindingKey),
    ).toEqual(["east->west", "east", "east", "connect-1"]);
    expect(
      ["cycle-at", "sync|east->west|orders|2", "stall|east->west|orders|2", "committed|east->west|orders|2", "event|DATA_LOSS|east->west|orders|2|1200", "finding|OFFLINE|west|orders"].map(
        ownerOfMemoryEntry,
      ),
    ).toEqual([null, "east->west", "east->west", "east->west", "east->west", "west"]);
  });

  it("a shard assignment applies from the next cycle only", () => {
    const assignment = holding([1]);
    assignment.update([0, 2]);
    expect([assignment.held(), assignment.owns("east->west")]).toEqual([[1], true]);
    assignment.beginCycle();
    expect([assignment.held(), assignment.owns("east->west"), assignment.owns("east")]).toEqual([[0, 2], false, true]);
  });
});

describe("alert service scoped to shards", () => {
  it("leaves another collector's alert and memory alone, and a gained shard's alert continues: same id, not fired again", async () => {
    const store = openStore();
    const a = createAlertService(store, config, holding([1]));
    const bShards = holding([0, 2, 3]);
    const b = createAlertService(store, config, bShards);

    await a.processCycle({ current: cycleWith(1, 1000n), previous: null, history, extraFindings: [] });
    const fired = await a.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history, extraFindings: [] });
    expect(fired.alerts.map((x) => [x.type, x.state, x.evidence.firstLostOffset, x.evidence.lastLostOffset, x.evidence.lostCount])).toEqual([
      ["DATA_LOSS", "firing", "1200", "1699", "500"],
    ]);
    const id = fired.alerts[0]!.id;
    a.stop();

    // B holds the other shards for two minutes (past the one-minute hysteresis) and never sees the flow.
    for (const cycle of [3, 9, 15]) {
      const result = await b.processCycle({ current: withoutFlow(cycle), previous: withoutFlow(cycle - 1), history, extraFindings: [] });
      expect(result.alerts).toEqual([]);
    }
    expect((await store.loadAlerts()).map((x) => [x.id, x.state])).toEqual([[id, "firing"]]);
    const keys = (await store.loadDetectorMemoryEntries()).map(([key]) => key);
    expect(keys.filter((k) => k.includes("east->west")).every((k) => k.startsWith("@1|"))).toBe(true);
    expect(keys.filter((k) => k.endsWith("cycle-at")).sort()).toEqual(["@0|cycle-at", "@1|cycle-at", "@2|cycle-at", "@3|cycle-at"]);
    expect(keys.some((k) => k.startsWith("@1|event|DATA_LOSS|east->west|orders|2|"))).toBe(true);

    // A is gone; the group gives B shard 1 too. Its next cycle reads what A left before judging the flow.
    bShards.update([0, 1, 2, 3]);
    bShards.beginCycle();
    const gained = await b.processCycle({ current: cycleWith(16, 1700n), previous: withoutFlow(15), history, extraFindings: [] });
    expect(gained.alerts.map((x) => [x.id, x.type, x.state, x.evidence.firstLostOffset, x.evidence.lastLostOffset, x.evidence.lostCount])).toEqual([
      [id, "DATA_LOSS", "firing", "1200", "1699", "500"],
    ]);
    expect(gained.transitions).toEqual([]);
    expect((await store.listEvents(0, Number.MAX_SAFE_INTEGER, 10)).map((e) => e.kind)).toEqual(["alert-fired"]);
    b.stop();
  });

  it("a lost shard's alert is no longer held, and stays firing in the store for its next owner", async () => {
    const store = openStore();
    const shards = holding([1]);
    const a = createAlertService(store, config, shards);
    await a.processCycle({ current: cycleWith(1, 1000n), previous: null, history, extraFindings: [] });
    await a.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history, extraFindings: [] });
    shards.update([2]);
    shards.beginCycle();
    const after = await a.processCycle({ current: withoutFlow(20), previous: cycleWith(2, 1700n), history, extraFindings: [] });
    expect([after.alerts, after.transitions]).toEqual([[], []]);
    expect(a.list()).toEqual([]);
    expect((await store.loadAlerts()).map((x) => [x.type, x.state])).toEqual([["DATA_LOSS", "firing"]]);
    a.stop();
  });
});
