import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownerOfFindingKey } from "@/lib/alerts/alert-scope";
import type { AlertRecord } from "@/lib/alerts/types";
import { shardOf } from "@/lib/collector/shards";
import { parseConfigText } from "@/lib/config";
import { flowPartitionKey } from "@/lib/collector/types";
import { ownerOfMemoryEntry } from "@/lib/pipeline/rule-memory";
import { createSqliteStore, type Store } from "@/lib/store";
import { translateFlow } from "@/lib/translation";
import { makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";
import { makeCheckpoint, makeFlow, makeGroup, steadySyncs } from "../translation/fixtures";
import { holdShards, moveShards } from "../collector/shard-fixtures";
import { createScopedCollector } from "./scoped-collector";

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

const holding = (shards: number[]) => holdShards(shards, SHARDS);

/**
 * The store, listing the alerts, values and memory prefixes read through it; `failAlertWrites` makes saveAlerts fail
 * as a database error would.
 */
function watchedStore(store: Store) {
  const reads: string[] = [];
  const control = { failAlertWrites: false };
  const watched = new Proxy(store, {
    get(target, prop) {
      const member: unknown = Reflect.get(target, prop);
      if (typeof member !== "function") return member;
      return (...args: unknown[]): unknown => {
        if (prop === "saveAlerts" && control.failAlertWrites) return Promise.reject(new Error("SQLITE_BUSY: database is locked"));
        if (prop === "loadAlerts" || prop === "getValue" || prop === "loadDetectorMemoryEntries") reads.push([String(prop), ...args.map(String)].join(" "));
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: watched, reads, control };
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
    const a = createScopedCollector(store, config, holding([1]));
    const bShards = holding([0, 2, 3]);
    const b = createScopedCollector(store, config, bShards);

    await a.processCycle({ current: cycleWith(1, 1000n), previous: null, history });
    const fired = await a.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history });
    expect(fired.alerts.map((x) => [x.type, x.state, x.evidence.firstLostOffset, x.evidence.lastLostOffset, x.evidence.lostCount])).toEqual([
      ["DATA_LOSS", "firing", "1200", "1699", "500"],
    ]);
    const id = fired.alerts[0]!.id;
    a.stop();

    // B holds the other shards for two minutes (past the one-minute hysteresis) and never sees the flow.
    for (const cycle of [3, 9, 15]) {
      const result = await b.processCycle({ current: withoutFlow(cycle), previous: withoutFlow(cycle - 1), history });
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
    const gained = await b.processCycle({ current: cycleWith(16, 1700n), previous: withoutFlow(15), history });
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
    const a = createScopedCollector(store, config, shards);
    await a.processCycle({ current: cycleWith(1, 1000n), previous: null, history });
    await a.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history });
    shards.update([2]);
    shards.beginCycle();
    const after = await a.processCycle({ current: withoutFlow(20), previous: cycleWith(2, 1700n), history });
    expect([after.alerts, after.transitions]).toEqual([[], []]);
    expect(a.list()).toEqual([]);
    expect((await store.loadAlerts()).map((x) => [x.type, x.state])).toEqual([["DATA_LOSS", "firing"]]);
    a.stop();
  });
});

describe("a change of held shards reads only the gained ones", () => {
  it("reads the gained shard's rule memory, alerts and risks, and none of the kept shard's", async () => {
    const { store, reads } = watchedStore(openStore());
    const shards = holding([1]);
    const service = createScopedCollector(store, config, shards);
    await service.processCycle({ current: cycleWith(1, 1000n), previous: null, history });
    const fired = await service.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history });
    const id = fired.alerts[0]!.id;
    reads.splice(0);
    moveShards(shards, [1, 2]);
    const after = await service.processCycle({ current: cycleWith(3, 1700n), previous: cycleWith(2, 1700n), history });
    // The rules' memory of shard 2 (its detector entries; its checkpoint watch, never stored: the single value of the
    // version before is looked at once), then its alerts and risks.
    expect(reads).toEqual([
      "loadDetectorMemoryEntries @2|",
      "getValue checkpoint-watch@2",
      "getValue checkpoint-watch",
      "loadAlerts",
      "getValue risks@2",
    ]);
    expect(after.alerts.map((a) => [a.id, a.type, a.state])).toEqual([[id, "DATA_LOSS", "firing"]]);
    expect(after.transitions).toEqual([]);
    service.stop();
  });

  it("keeps what it holds for a kept shard in memory although the store's copy trails it (a write failed)", async () => {
    const base = openStore();
    const { store, control } = watchedStore(base);
    const shards = holding([1]);
    const service = createScopedCollector(store, config, shards);
    await service.processCycle({ current: cycleWith(1, 1000n), previous: null, history });
    const fired = await service.processCycle({ current: cycleWith(2, 1700n), previous: cycleWith(1, 1000n), history });
    const id = fired.alerts[0]!.id;
    // A web instance queued an acknowledgement; the cycle applies it, and writing the alerts fails.
    await base.requestAcknowledgement({ alertId: id, by: "ops@example.com", at: T0 + 25_000 });
    control.failAlertWrites = true;
    const acked = await service.processCycle({ current: cycleWith(3, 1700n), previous: cycleWith(2, 1700n), history });
    expect(acked.alerts.map((a) => a.acknowledged?.by)).toEqual(["ops@example.com"]);
    expect((await base.loadAlerts<AlertRecord>()).map((a) => a.acknowledged)).toEqual([null]);
    expect(await base.listAcknowledgementRequests()).toEqual([]);
    control.failAlertWrites = false;
    // Shard 2 joins: shard 1's alert is still acknowledged (as held, not as stored), and now written.
    moveShards(shards, [1, 2]);
    const after = await service.processCycle({ current: cycleWith(4, 1700n), previous: cycleWith(3, 1700n), history });
    expect(after.alerts.map((a) => [a.id, a.state, a.acknowledged?.by, a.acknowledged?.at])).toEqual([[id, "firing", "ops@example.com", T0 + 25_000]]);
    expect((await base.loadAlerts<AlertRecord>()).map((a) => a.acknowledged?.by)).toEqual(["ops@example.com"]);
    service.stop();
  });
});

/** Group "app" of east->west at 9995 on orders/0, latest checkpoint 9000→9000 taken at T0: MM2 owes one from T0 on. */
function owedCheckpoints(now: number) {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  const ft = translateFlow({
    flow: makeFlow({ checkpoints: [checkpoint] }),
    sourceGroups: [makeGroup("app", { "orders/0": 9995n })],
    syncHistory: new Map([[flowPartitionKey("east->west", "orders", 0), steadySyncs(10, 10_000)]]),
    now,
  });
  return new Map([[ft.flow, ft]]);
}

describe("CHECKPOINT_STALE across a handover", () => {
  it("the new owner continues the alert (same id, first seen) and its clock (owed since T0)", async () => {
    const store = openStore();
    const collector = (shards: number[]) => {
      const scope = holding(shards);
      return { scope, alerts: createScopedCollector(store, config, scope) };
    };
    const runAt = async (c: ReturnType<typeof collector>, now: number, withFlow: boolean) => {
      const snapshot = makeSnapshot({ cycle: 1 + (now - T0) / 10_000, takenAt: now });
      const current = withFlow ? snapshot : { ...snapshot, flows: [] };
      return c.alerts.processCycle({ current, previous: null, history, translations: withFlow ? owedCheckpoints(now) : new Map() });
    };
    const stale = (r: Awaited<ReturnType<typeof runAt>>) =>
      r.alerts.filter((x) => x.type === "CHECKPOINT_STALE").map((x) => [x.id, x.state, x.firstSeen, x.evidence.owedForMs]);

    const a = collector([1]);
    const b = collector([0, 2, 3]);
    expect(stale(await runAt(a, T0, true))).toEqual([]);
    expect(stale(await runAt(b, T0 + 10_000, false))).toEqual([]);
    const fired = stale(await runAt(a, T0 + 190_000, true));
    expect(fired.map(([, state, firstSeen, owed]) => [state, firstSeen, owed])).toEqual([["firing", T0 + 190_000, 190_000]]);
    expect(stale(await runAt(b, T0 + 195_000, false))).toEqual([]);
    a.alerts.stop();

    // A is gone; B takes shard 1 at its next cycle: not fired again, not even updated (same summary, "for 3 min").
    moveShards(b.scope, [0, 1, 2, 3]);
    const taken = await runAt(b, T0 + 200_000, true);
    expect(stale(taken)).toEqual([[fired[0]![0], "firing", T0 + 190_000, 200_000]]);
    expect(taken.transitions).toEqual([]);
    b.alerts.stop();
  });
});
