import { describe, expect, it } from "vitest";
import { createAlertService, type AlertService } from "@/lib/alerts/alert-service";
import { ShardAssignment } from "@/lib/collector/shards";
import { flowPartitionKey } from "@/lib/collector/types";
import { parseConfigText } from "@/lib/config";
import { defaultThresholds } from "@/lib/config/thresholds";
import { loadDetectorMemoryEntries } from "@/lib/detect/memory-persistence";
import type { Finding } from "@/lib/detect/types";
import type { Store } from "@/lib/store";
import { translateFlow, type FlowTranslation } from "@/lib/translation";
import { createTranslationFindingSource } from "./translation-finding-source";
import { makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, T0 } from "../translation/fixtures";
import { holdShards } from "../collector/shard-fixtures";
import { createTempSqliteStores } from "./temp-sqlite-stores";

/**
 * Group "app" at 9995 on orders/0, latest checkpoint 9000→9000 taken at T0: MM2 owes 9991 from T0 on. `flows`: the
 * flows translated (each the same, under its id).
 */
function owedAt(now: number, flows: readonly string[] = ["east->west"]): ReadonlyMap<string, FlowTranslation> {
  return new Map(flows.map((id) => [id, translateOwed(now, id)]));
}

function translateOwed(now: number, id: string, committed = 9995n): FlowTranslation {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  return translateFlow({
    flow: makeFlow({ id, target: id.split("->")[1]!, checkpoints: [checkpoint] }),
    sourceGroups: [makeGroup("app", { "orders/0": committed })],
    syncHistory: new Map([[flowPartitionKey(id, "orders", 0), steadySyncs(10, 10_000)]]),
    now,
  });
}

/** As owedAt, but "app" committed 9000, the latest checkpoint's upstream offset: MM2 owes nothing. */
function caughtUpAt(now: number): ReadonlyMap<string, FlowTranslation> {
  return new Map([["east->west", translateOwed(now, "east->west", 9000n)]]);
}

/** As owedAt, but the group's OffsetFetch failed this cycle: the rows use the read from T0. */
function unknownAt(now: number): ReadonlyMap<string, FlowTranslation> {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  const group = makeGroup("app", { "orders/0": 9995n }, { error: "OffsetFetch: COORDINATOR_NOT_AVAILABLE", dataAt: T0 });
  const ft = translateFlow({ flow: makeFlow({ checkpoints: [checkpoint] }), sourceGroups: [group], syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }), now });
  return new Map([[ft.flow, ft]]);
}

/** Runs a finding source over the given times; returns the CHECKPOINT_STALE evidence owedForMs per call. */
async function runSource(store: Store, times: number[]): Promise<(number | null)[][]> {
  const source = createTranslationFindingSource(store);
  const owed: (number | null)[][] = [];
  for (const now of times) {
    const findings = await source(owedAt(now), now, defaultThresholds);
    owed.push(findings.filter((f) => f.type === "CHECKPOINT_STALE").map((f) => (typeof f.evidence.owedForMs === "number" ? f.evidence.owedForMs : null)));
  }
  return owed;
}

const WEST_WATCH = "east->west|app|orders|0";
const SOUTH_WATCH = "east->south|app|orders|0";

/**
 * The stored memory entries (under `prefix`, a shard's `@<n>|`): the watch entries by key, the findings as [key,
 * observedAt (null: the writing cycle's), restatedAt, owedForMs], and whether `watch-entries` is there.
 */
async function storedEntries(store: Store, prefix = "") {
  type Stored = { key: string; observedAt: number | null; restatedAt?: number; evidence: Record<string, unknown> };
  const findings: unknown[][] = [];
  let marked = false;
  const entries = (await store.loadDetectorMemoryEntries(prefix)).map(([key, value]): [string, string] => [key.slice(prefix.length), value]);
  // The watch's rows as the store holds them: as numbers, each entry [checkpoint, dueSince].
  const rows = entries.filter(([key]) => key.startsWith("watches") || key.startsWith("watch|"));
  const watch = Object.fromEntries(Object.entries(loadDetectorMemoryEntries(rows).watch).map(([k, e]) => [k, [e.checkpoint, e.dueSince]]));
  for (const [rest, value] of entries.sort(([a], [b]) => a.localeCompare(b))) {
    if (rest === "watch-entries") marked = true;
    if (!rest.startsWith("finding|")) continue;
    const f = JSON.parse(value) as Stored;
    findings.push([f.key, f.observedAt, f.restatedAt ?? null, f.evidence.owedForMs]);
  }
  return { watch, findings, marked };
}

const stores = createTempSqliteStores("gapwatch-watch-");
const openStore = () => stores.open();

describe("the translation finding source keeps its checkpoint watch across restarts", () => {
  it("after a restart the owed checkpoint is still owed since T0: the finding neither resolves nor starts over", async () => {
    const first = openStore();
    expect(await runSource(first, [T0, T0 + 100_000, T0 + 190_000])).toEqual([[], [], [190_000]]);
    await stores.close(first);
    // A new process: new store handle, new finding source, same database file.
    expect(await runSource(openStore(), [T0 + 200_000, T0 + 210_000])).toEqual([[200_000], [210_000]]);
  });

  it("starts afresh (and does not throw) on a stored watch that is corrupt or of another shape", async () => {
    const store = openStore();
    // A value of the version before that is not JSON: read once, started afresh.
    await store.setValue("checkpoint-watch", "{not json");
    expect(await runSource(store, [T0 + 200_000, T0 + 390_000])).toEqual([[], [190_000]]);
    // An entry that is not [checkpoint, dueSince]: the memory starts afresh (its clock starts again).
    await store.saveDetectorMemoryEntries([{ key: `watch|${WEST_WATCH}`, value: JSON.stringify({ checkpoint: "9000:9000" }) }]);
    expect(await runSource(store, [T0 + 400_000])).toEqual([[]]);
    expect((await storedEntries(store)).watch).toEqual({ [WEST_WATCH]: ["9000:9000", T0 + 400_000] });
  });
});

describe("the watch is written as memory entries, only what changed", () => {
  it("a failed write is written by the next cycle; a restart in between reads what was written before it", async () => {
    const store = openStore();
    let fail = false;
    const failing: Store = {
      ...store,
      saveDetectorMemoryEntries: async (changes) => {
        if (fail) throw new Error("disk full");
        await store.saveDetectorMemoryEntries(changes);
      },
    };
    const source = createTranslationFindingSource(failing);
    await source(owedAt(T0), T0, defaultThresholds);
    expect((await storedEntries(store)).watch).toEqual({ [WEST_WATCH]: ["9000:9000", T0] });
    // "app" caught up: its entry goes, but the write fails.
    fail = true;
    expect(await source(caughtUpAt(T0 + 10_000), T0 + 10_000, defaultThresholds)).toEqual([]);
    expect((await storedEntries(store)).watch).toEqual({ [WEST_WATCH]: ["9000:9000", T0] });
    // A restart now reads the entry of T0.
    expect(await runSource(openStore(), [T0 + 190_000])).toEqual([[190_000]]);
    fail = false;
    // The next cycle owes again from T0 + 20 s: compared with what the store holds, the entry is written anew.
    await source(owedAt(T0 + 20_000), T0 + 20_000, defaultThresholds);
    expect((await storedEntries(store)).watch).toEqual({ [WEST_WATCH]: ["9000:9000", T0 + 20_000] });
  });
});

describe("a group whose offsets could not be read is not judged", () => {
  it("keeps CHECKPOINT_STALE (same evidence, same clock) while the group is unknown, and judges again once read", async () => {
    const store = openStore();
    let latest = owedAt(T0);
    const source = createTranslationFindingSource(store);
    const staleOwed = async (now: number) => (await source(latest, now, defaultThresholds)).filter((f) => f.type === "CHECKPOINT_STALE").map((f) => f.evidence.owedForMs);
    expect(await staleOwed(T0)).toEqual([]);
    latest = owedAt(T0 + 190_000);
    expect(await staleOwed(T0 + 190_000)).toEqual([190_000]);
    latest = unknownAt(T0 + 200_000);
    expect(latest.get("east->west")!.groups[0]!.unknown).toBe("OffsetFetch: COORDINATOR_NOT_AVAILABLE (last read 200 s ago)");
    // Carried as last seen: neither resolved nor re-dated on data that was not read.
    expect(await staleOwed(T0 + 200_000)).toEqual([190_000]);
    expect(await staleOwed(T0 + 260_000)).toEqual([190_000]);
    latest = owedAt(T0 + 270_000);
    // Read again: the clock kept its start (T0), so the checkpoint is owed for 270 s.
    expect(await staleOwed(T0 + 270_000)).toEqual([270_000]);
  });

  it("keeps a flow's findings as they were when translating its cycle failed, and drops them when the flow is gone", async () => {
    const store = openStore();
    const source = createTranslationFindingSource(store);
    await source(owedAt(T0), T0, defaultThresholds);
    const fired = await source(owedAt(T0 + 190_000), T0 + 190_000, defaultThresholds);
    expect(fired.map((f) => [f.type, f.flow, f.evidence.owedForMs])).toEqual([["CHECKPOINT_STALE", "east->west", 190_000]]);
    // The cycle pipeline could not translate east->west: no translation, the flow named as untranslated.
    expect(await source(new Map(), T0 + 200_000, defaultThresholds, new Set(["east->west"]))).toEqual(fired);
    expect(await source(new Map(), T0 + 260_000, defaultThresholds, new Set(["east->west"]))).toEqual(fired);
    // A flow that is no longer there (not translated and not named) is judged gone: nothing is carried.
    expect(await source(new Map(), T0 + 270_000, defaultThresholds)).toEqual([]);
  });

  it("raises nothing for a group that was never judged and is unknown now", async () => {
    const store = openStore();
    const latest = unknownAt(T0 + 500_000);
    const source = createTranslationFindingSource(store);
    expect(await source(latest, T0 + 500_000, defaultThresholds)).toEqual([]);
  });
});

/** With 4 shards: east->west is on shard 1, east->south on shard 2. */
const SHARDS = 4;

const holding = (shards: number[]) => holdShards(shards, SHARDS);

/** The CHECKPOINT_STALE findings' flow and owedForMs. */
const staleOf = (findings: readonly { type: string; flow?: string | null; evidence: Record<string, unknown> }[]) =>
  findings.filter((f) => f.type === "CHECKPOINT_STALE").map((f) => [f.flow, f.evidence.owedForMs]);

const WEST_STALE = "CHECKPOINT_STALE|east->west|app|orders|0";
const SOUTH_STALE = "CHECKPOINT_STALE|east->south|app|orders|0";

describe("collectors sharing the work keep the checkpoint watch per shard (scaleOut)", () => {
  it("two collectors never overwrite each other's clocks, and a shard's new owner keeps the previous owner's", async () => {
    const store = openStore();
    const a = createTranslationFindingSource(store, holding([1]));
    const bShards = holding([0, 2, 3]);
    const b = createTranslationFindingSource(store, bShards);
    // A judges east->west from T0, B judges east->south from T0 + 50 s; each writes its own shard's entries only.
    expect(staleOf(await a(owedAt(T0), T0, defaultThresholds))).toEqual([]);
    expect(staleOf(await b(owedAt(T0 + 50_000, ["east->south"]), T0 + 50_000, defaultThresholds))).toEqual([]);
    expect(staleOf(await a(owedAt(T0 + 190_000), T0 + 190_000, defaultThresholds))).toEqual([["east->west", 190_000]]);
    expect(staleOf(await b(owedAt(T0 + 250_000, ["east->south"]), T0 + 250_000, defaultThresholds))).toEqual([["east->south", 200_000]]);
    const aStored = { watch: { [WEST_WATCH]: ["9000:9000", T0] }, findings: [[WEST_STALE, null, T0, 0]], marked: true };
    const bStored = { watch: { [SOUTH_WATCH]: ["9000:9000", T0 + 50_000] }, findings: [[SOUTH_STALE, null, T0 + 50_000, 0]], marked: true };
    expect(await storedEntries(store, "@1|")).toEqual(aStored);
    expect(await storedEntries(store, "@2|")).toEqual(bStored);
    expect([await storedEntries(store, "@0|"), await storedEntries(store, "@3|")]).toEqual([
      { watch: {}, findings: [], marked: true },
      { watch: {}, findings: [], marked: true },
    ]);
    expect((await storedEntries(store)).watch).toEqual({});

    // A is gone; B gains shard 1: the clock of east->west still runs from T0, B's own from T0 + 50 s.
    bShards.update([0, 1, 2, 3]);
    bShards.beginCycle();
    const both = owedAt(T0 + 300_000, ["east->west", "east->south"]);
    expect(staleOf(await b(both, T0 + 300_000, defaultThresholds))).toEqual([
      ["east->west", 300_000],
      ["east->south", 250_000],
    ]);
    expect(await storedEntries(store, "@1|")).toEqual(aStored);

    // B loses shard 2: its clock is no longer held (a later gain reads what the store has), and stays stored.
    bShards.update([0, 1, 3]);
    bShards.beginCycle();
    expect(staleOf(await b(owedAt(T0 + 310_000), T0 + 310_000, defaultThresholds))).toEqual([["east->west", 310_000]]);
    expect(await storedEntries(store, "@2|")).toEqual(bStored);
  });

  it("a shard never stored takes its flows' clocks from the single value of the version before, once", async () => {
    const store = openStore();
    const legacy = {
      version: 1,
      watch: {
        [WEST_WATCH]: { checkpoint: "9000:9000", dueSince: T0 },
        [SOUTH_WATCH]: { checkpoint: "9000:9000", dueSince: T0 + 20_000 },
      },
    };
    await store.setValue("checkpoint-watch", JSON.stringify(legacy));
    const a = createTranslationFindingSource(store, holding([1]));
    expect(staleOf(await a(owedAt(T0 + 190_000), T0 + 190_000, defaultThresholds))).toEqual([["east->west", 190_000]]);
    expect(await storedEntries(store, "@1|")).toEqual({ watch: { [WEST_WATCH]: ["9000:9000", T0] }, findings: [[WEST_STALE, null, T0, 0]], marked: true });
    // The old value is left (and ignored by a shard stored as entries): a restart reads shard 1's entries, and shard 2
    // (never stored) from the old value as it is then.
    expect(JSON.parse((await store.getValue("checkpoint-watch"))!)).toEqual(legacy);
    const newer = { [WEST_WATCH]: { checkpoint: "9000:9000", dueSince: T0 + 150_000 } };
    await store.setValue("checkpoint-watch", JSON.stringify({ version: 1, watch: { ...legacy.watch, ...newer } }));
    const restarted = createTranslationFindingSource(store, holding([1, 2]));
    expect(staleOf(await restarted(owedAt(T0 + 210_000, ["east->west", "east->south"]), T0 + 210_000, defaultThresholds))).toEqual([
      ["east->west", 210_000],
      ["east->south", 190_000],
    ]);
    expect(await storedEntries(store, "@2|")).toEqual({
      watch: { [SOUTH_WATCH]: ["9000:9000", T0 + 20_000] },
      findings: [[SOUTH_STALE, null, T0 + 20_000, 0]],
      marked: true,
    });
  });
});

const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});

/** A Gapwatch process (or a collector): a finding source and an alert service on the store. */
function startGapwatch(store: Store, scope: ShardAssignment | null = null) {
  return { source: createTranslationFindingSource(store, scope), alerts: createAlertService(store, config, scope) };
}

/**
 * One cycle at `now`: the source's findings reconciled by the alert service, then the CHECKPOINT_STALE alerts as
 * [state, firstSeen, lastSeen, owedForMs] and the transitions of the cycle.
 */
async function runCycle(
  gapwatch: { source: ReturnType<typeof createTranslationFindingSource>; alerts: AlertService },
  translations: ReadonlyMap<string, FlowTranslation>,
  now: number,
) {
  const findings = await gapwatch.source(translations, now, defaultThresholds);
  const result = await gapwatch.alerts.processCycle({ findings, now });
  const stale = result.alerts.filter((a) => a.type === "CHECKPOINT_STALE");
  return {
    findings,
    alerts: stale.map((a) => [a.state, a.firstSeen, a.lastSeen, a.evidence.owedForMs]),
    ids: stale.map((a) => a.id),
    transitions: result.transitions.filter((t) => t.alert.type === "CHECKPOINT_STALE").map((t) => t.type),
  };
}

/** Before the restart: CHECKPOINT_STALE fires at T0 + 190 s on the store; returns its finding and alert id. */
async function fireBeforeRestart(store: Store): Promise<{ finding: Finding; id: string }> {
  const gapwatch = startGapwatch(store);
  expect((await runCycle(gapwatch, owedAt(T0), T0)).findings).toEqual([]);
  const fired = await runCycle(gapwatch, owedAt(T0 + 190_000), T0 + 190_000);
  expect([fired.alerts, fired.transitions]).toEqual([[["firing", T0 + 190_000, T0 + 190_000, 190_000]], ["fired"]]);
  gapwatch.alerts.stop();
  return { finding: fired.findings[0]!, id: fired.ids[0]! };
}

describe("a first cycle after a restart that cannot judge a group carries its stored findings", () => {
  it("the group's offsets unknown: the finding is carried, owed since its stored start, its alert stays firing, nothing resolves", async () => {
    const first = openStore();
    const before = await fireBeforeRestart(first);
    expect([before.finding.key, before.finding.evidence.owedForMs]).toEqual(["CHECKPOINT_STALE|east->west|app|orders|0", 190_000]);
    await stores.close(first);
    // A new process 210 s later (well past resolveAfterMs, 60 s), whose first cycle cannot read the group's offsets.
    const restarted = startGapwatch(openStore());
    const carried = await runCycle(restarted, unknownAt(T0 + 400_000), T0 + 400_000);
    // Stored without its clocks (owed since T0), it reads as at the cycle that reads it: owed for 400 s, "7 min"
    // instead of 3 ("updated", as the minutes moved), checkpoint 400 s old; nothing else changed.
    const summary = before.finding.summary.replace("for 3 min", "for 7 min");
    const evidence = { ...before.finding.evidence, owedForMs: 400_000, checkpointAgeMs: 400_000 };
    expect(carried.findings).toEqual([{ ...before.finding, summary, evidence, observedAt: T0 + 400_000 }]);
    expect([carried.ids, carried.alerts, carried.transitions]).toEqual([[before.id], [["firing", T0 + 190_000, T0 + 400_000, 400_000]], ["updated"]]);
    // Read again: judged on what is read (owed since T0, as the stored watch says); the same alert, never resolved.
    const judged = await runCycle(restarted, owedAt(T0 + 410_000), T0 + 410_000);
    expect([judged.alerts, judged.transitions]).toEqual([[["firing", T0 + 190_000, T0 + 410_000, 410_000]], []]);
    restarted.alerts.stop();
  });

  it("control: the group read and caught up: the alert resolves 60 s (resolveAfterMs) after it was last seen, as before", async () => {
    const first = openStore();
    await fireBeforeRestart(first);
    await stores.close(first);
    const restarted = startGapwatch(openStore());
    const early = await runCycle(restarted, caughtUpAt(T0 + 220_000), T0 + 220_000);
    expect([early.findings, early.alerts, early.transitions]).toEqual([[], [["firing", T0 + 190_000, T0 + 190_000, 190_000]], []]);
    const late = await runCycle(restarted, caughtUpAt(T0 + 250_000), T0 + 250_000);
    expect([late.alerts, late.transitions]).toEqual([[["resolved", T0 + 190_000, T0 + 190_000, 190_000]], ["resolved"]]);
    restarted.alerts.stop();
  });

  it("a value of the version before (no findings) carries none, and its clock still counts", async () => {
    const store = openStore();
    const watch = { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 } };
    await store.setValue("checkpoint-watch", JSON.stringify({ version: 1, watch }));
    const source = createTranslationFindingSource(store);
    expect(await source(unknownAt(T0 + 400_000), T0 + 400_000, defaultThresholds)).toEqual([]);
    expect(staleOf(await source(owedAt(T0 + 410_000), T0 + 410_000, defaultThresholds))).toEqual([["east->west", 410_000]]);
  });

  it("writes an entry only when the watch or the findings changed (not while CHECKPOINT_STALE fires on), nor after a restart", async () => {
    const store = openStore();
    const writes: string[] = [];
    const counted: Store = {
      ...store,
      saveDetectorMemoryEntries: async (changes) => {
        writes.push(...changes.map((c) => c.key).filter((key) => key !== "cycle-at"));
        await store.saveDetectorMemoryEntries(changes);
      },
    };
    const source = createTranslationFindingSource(counted);
    const counts: number[] = [];
    const owed: unknown[] = [];
    // T0, T0 + 10 s, then 40 cycles from T0 + 190 s, every 10 s, CHECKPOINT_STALE firing in each.
    for (const now of [T0, T0 + 10_000, ...Array.from({ length: 40 }, (_, i) => T0 + 190_000 + i * 10_000)]) {
      owed.push(...staleOf(await source(owedAt(now), now, defaultThresholds)).map(([, ms]) => ms));
      counts.push(writes.length);
    }
    // The entry owed since T0 (and the mark that the watch is entries); unchanged; CHECKPOINT_STALE fires (its
    // finding); its owedForMs grows, nothing written.
    expect(counts).toEqual([3, 3, ...Array<number>(40).fill(4)]);
    expect(owed).toEqual(Array.from({ length: 40 }, (_, i) => 190_000 + i * 10_000));
    const restarted = createTranslationFindingSource(counted);
    expect(staleOf(await restarted(unknownAt(T0 + 600_000), T0 + 600_000, defaultThresholds))).toEqual([["east->west", 600_000]]);
    expect(writes).toEqual(["watches|east->west|0", "watches-keys|east->west|0", "watch-entries", `finding|${WEST_STALE}`]);
  });

  it("scaleOut: a collector that gains the shard carries the previous owner's findings of the group it cannot read", async () => {
    const store = openStore();
    const a = startGapwatch(store, holding([1]));
    const bShards = holding([0, 2, 3]);
    const b = startGapwatch(store, bShards);
    expect((await runCycle(a, owedAt(T0), T0)).findings).toEqual([]);
    expect((await runCycle(b, new Map(), T0 + 10_000)).alerts).toEqual([]);
    const fired = await runCycle(a, owedAt(T0 + 190_000), T0 + 190_000);
    expect([fired.alerts, fired.transitions]).toEqual([[["firing", T0 + 190_000, T0 + 190_000, 190_000]], ["fired"]]);
    expect((await runCycle(b, new Map(), T0 + 195_000)).alerts).toEqual([]);
    a.alerts.stop();

    // A is gone; B takes shard 1 and cannot read the group's offsets in its first cycle with it.
    bShards.update([0, 1, 2, 3]);
    bShards.beginCycle();
    const taken = await runCycle(b, unknownAt(T0 + 400_000), T0 + 400_000);
    // As read by B's cycle: owed since T0, for 400 s ("updated": 7 min instead of 3).
    expect(staleOf(taken.findings)).toEqual([["east->west", 400_000]]);
    expect(taken.findings.map((f) => f.key)).toEqual(fired.findings.map((f) => f.key));
    expect([taken.ids, taken.alerts, taken.transitions]).toEqual([fired.ids, [["firing", T0 + 190_000, T0 + 400_000, 400_000]], ["updated"]]);
    b.alerts.stop();
  });
});

/**
 * Kafka's own MM2 look-alike (testOffsetTranslationBehindReplicationFlow): "lagger" at 9000 on orders/0 (log end
 * 10,000), checkpointed 9000→9000, is reset back to 4000 on the source by an operator. MM2 (checkpointIsMoreRecent)
 * emits the rewound checkpoint at its next emit (60 s here): until then the latest checkpoint is ahead of the group.
 */
function laggerAt(now: number, committed: bigint, checkpoint: { upstream: bigint; downstream: bigint; at: number }): ReadonlyMap<string, FlowTranslation> {
  const ft = translateFlow({
    flow: makeFlow({ checkpoints: [{ group: "lagger", topic: "orders", partition: 0, ...checkpoint }] }),
    sourceGroups: [makeGroup("lagger", { "orders/0": committed }, { state: "Empty", members: 0 })],
    syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }),
    now,
  });
  return new Map([[ft.flow, ft]]);
}

describe("a lagging group rewound upstream (checkpoints go backwards)", () => {
  const before = { upstream: 9000n, downstream: 9000n, at: T0 };
  const summaries = (findings: Finding[]) => findings.map((f) => `${f.type} ${f.severity} ${f.summary}`);

  it("raises nothing while MM2's rewound checkpoint is due, nor after MM2 emits it", async () => {
    const source = createTranslationFindingSource(openStore());
    expect(summaries(await source(laggerAt(T0, 9000n, before), T0, defaultThresholds))).toEqual([]);
    // The rewind: the latest checkpoint (9000→9000) is ahead of the group until MM2's next emit.
    const rewound = laggerAt(T0 + 10_000, 4000n, before);
    expect(rewound.get("east->west")!.groups[0]!.partitions[0]!.failoverReread).toMatchObject({ records: -5000n, skip: "certain" });
    expect(summaries(await source(rewound, T0 + 10_000, defaultThresholds))).toEqual([]);
    expect(summaries(await source(laggerAt(T0 + 60_000, 4000n, before), T0 + 60_000, defaultThresholds))).toEqual([]);
    // MM2's checkpoint went back with the group (its thinned store keeps a sync at 3840): nothing skipped or owed.
    const emitted = laggerAt(T0 + 70_000, 4000n, { upstream: 4000n, downstream: 3841n, at: T0 + 65_000 });
    expect(emitted.get("east->west")!.groups[0]!.partitions[0]!.failoverReread).toMatchObject({ records: 159n, skip: "none" });
    expect(summaries(await source(emitted, T0 + 70_000, defaultThresholds))).toEqual([]);
  });

  it("counts the skip once MM2 has owed the rewound checkpoint past CHECKPOINT_STALE's threshold (3 × 60 s emit)", async () => {
    const source = createTranslationFindingSource(openStore());
    await source(laggerAt(T0, 9000n, before), T0, defaultThresholds);
    await source(laggerAt(T0 + 10_000, 4000n, before), T0 + 10_000, defaultThresholds);
    expect(summaries(await source(laggerAt(T0 + 190_000, 4000n, before), T0 + 190_000, defaultThresholds))).toEqual([]);
    expect(summaries(await source(laggerAt(T0 + 191_000, 4000n, before), T0 + 191_000, defaultThresholds))).toEqual([
      "TRANSLATION_ERROR critical Group lagger would SKIP records on failover to west: 1 partition(s) (orders/0: 5000 records)",
      "CHECKPOINT_STALE warning MM2 has not checkpointed lagger on orders/0 for 3 min: committed 4000, latest checkpoint 9000→9000, MM2 should emit →3841",
    ]);
  });
});
