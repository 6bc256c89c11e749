import { describe, expect, it } from "vitest";
import { SyncModelCache, translateFlow, type PartitionTranslation, type TranslateFlowInput } from "@/lib/translation";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { detectTranslationErrors } from "@/lib/detect/translation-detectors";
import { FLOW, makeCheckpoint, makeFlow, makeFlowPartition, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

/** Translates one group "app" with the given committed offsets and options; returns its rows by "topic/partition". */
function translateApp(offsets: Record<string, bigint>, input: Partial<TranslateFlowInput> = {}): Map<string, PartitionTranslation> {
  const ft = translateFlow({
    flow: makeFlow(),
    sourceGroups: [makeGroup("app", offsets)],
    syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }),
    now: T0,
    ...input,
  });
  const group = ft.groups.find((g) => g.group === "app");
  if (!group) throw new Error("group app not translated");
  return new Map(group.partitions.map((p) => [`${p.topic}/${p.partition}`, p]));
}

describe("translateFlow: MM2's translation, the ideal offset and the re-read count per partition", () => {
  it("between two syncs of a one-to-one run: MM2 gives sync + 1, the ideal is exact, the difference is re-read", () => {
    const row = translateApp({ "orders/0": 150n }).get("orders/0")!;
    expect(row.translation).toEqual({ kind: "translated", downstream: 101n, syncUpstream: 100n, syncDownstream: 100n });
    expect(row.ideal).toEqual({ kind: "exact", downstream: 150n, basis: "one-to-one-run" });
    expect(row.reread).toEqual({ min: 49n, max: 49n, records: 49n, skip: "none" });
    expect(row.targetTopic).toBe("east.orders");
    expect(row.groupLag).toBe(9_850n);
  });

  it("at a sync: translation and ideal agree, nothing is re-read", () => {
    const row = translateApp({ "orders/0": 100n }).get("orders/0")!;
    expect(row.translation).toMatchObject({ kind: "translated", downstream: 100n });
    expect(row.ideal).toEqual({ kind: "exact", downstream: 100n, basis: "sync" });
    expect(row.reread?.records).toBe(0n);
  });

  it("inside an upstream gap only a bracket is provable: the re-read count uses its high bound", () => {
    // 199 upstream offsets (100, 300) produced only 49 target records (150 − 100 − 1). MM2's store
    // drops (100, 100) when (300, 150) arrives (invariant C: too close to (0, 0) for its slot), so
    // it translates from (0, 0): the +1 rule gives 1.
    const row = translateApp({ "orders/0": 200n }, { syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [300, 150]) }) }).get("orders/0")!;
    expect(row.translation).toEqual({ kind: "translated", downstream: 1n, syncUpstream: 0n, syncDownstream: 0n });
    expect(row.ideal).toEqual({ kind: "bracket", low: 101n, high: 150n, reason: "upstream-gap" });
    expect(row.reread).toEqual({ min: 100n, max: 149n, records: 149n, skip: "none" });
  });

  it("beyond the newest sync the bracket is bounded by one target record per source offset", () => {
    const row = translateApp({ "orders/0": 250n }).get("orders/0")!;
    expect(row.translation).toMatchObject({ kind: "translated", downstream: 201n });
    expect(row.ideal).toEqual({ kind: "bracket", low: 201n, high: 250n, reason: "beyond-newest-sync" });
    expect(row.reread?.records).toBe(49n);
  });

  it("−1: an offset older than the oldest sync MM2's store kept is untranslatable, while the full history still maps it exactly", () => {
    // The task restarted with the wiping start-up (Kafka < 3.7.1) after reading the first 3 syncs:
    // only (200, 200) survived the load, then (300, 300) arrived.
    const rows = translateApp(
      { "orders/0": 150n },
      { syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200], [300, 300]) }), replay: { initializationMustReadToEnd: true, syncsReadAtStartup: 3 } },
    );
    const row = rows.get("orders/0")!;
    expect(row.translation).toMatchObject({ kind: "untranslatable", reason: "older-than-oldest-sync" });
    expect(row.ideal).toEqual({ kind: "exact", downstream: 150n, basis: "one-to-one-run" });
    expect(row.reread).toBeNull();
  });

  it("an offset before the first sync ever written is −1 for MM2 and unknown for the ideal", () => {
    const row = translateApp({ "orders/0": 50n }, { syncHistory: makeHistory({ 0: syncs([100, 100], [200, 200]) }) }).get("orders/0")!;
    expect(row.translation).toMatchObject({ kind: "untranslatable", reason: "older-than-oldest-sync" });
    expect(row.ideal).toEqual({ kind: "unknown", reason: "before-first-sync" });
  });

  it("no sync yet for a partition: untranslatable with reason no-sync", () => {
    const row = translateApp({ "orders/1": 10n }).get("orders/1")!;
    expect(row.translation).toMatchObject({ kind: "untranslatable", reason: "no-sync" });
    expect(row.ideal).toEqual({ kind: "unknown", reason: "no-sync" });
    expect(row.failoverReread).toBeNull();
  });

  it("store not loaded: when the offset-syncs topic could not be read, nothing is translated", () => {
    const rows = translateApp({ "orders/0": 150n, "orders/1": 10n }, { syncsLoaded: false });
    for (const row of rows.values()) expect(row.translation).toMatchObject({ kind: "untranslatable", reason: "store-not-loaded" });
    // The ideal still comes from whatever history is held.
    expect(rows.get("orders/0")!.ideal).toMatchObject({ kind: "exact", downstream: 150n });
  });

  it("a partition the flow does not replicate is untranslatable with reason not-replicated", () => {
    const row = translateApp({ "orders/0": 150n, "orders/9": 5n }).get("orders/9")!;
    expect(row.translation).toMatchObject({ kind: "untranslatable", reason: "not-replicated" });
    expect(row.targetTopic).toBeNull();
  });

  it("flags a NEGATIVE re-read when the latest checkpoint is ahead of the group (it rewound): those records would be skipped", () => {
    const flow = makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 180n, 180n, 20_000)] });
    const row = translateApp({ "orders/0": 100n }, { flow }).get("orders/0")!;
    expect(row.reread?.records).toBe(0n);
    expect(row.checkpoint).toEqual({ upstream: 180n, downstream: 180n, at: T0 - 20_000, ageMs: 20_000 });
    expect(row.checkpointReread).toEqual({ min: -80n, max: -80n, records: -80n, skip: "certain" });
    expect(row.failoverReread?.skip).toBe("certain");
  });

  it("takes a checkpoint written after Gapwatch read the group as a later commit, not a skip; an older one above the offset is a rewind", () => {
    // The group was read at T0 − 10 s with 100; MM2 read it later (120) and checkpointed 120 → 120 at T0 − 5 s.
    const later = makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 120n, 5_000)] });
    const group = (dataAt: number) => [makeGroup("app", { "orders/0": 100n }, { dataAt })];
    const stale = translateApp({}, { flow: later, sourceGroups: group(T0 - 10_000) }).get("orders/0")!;
    expect([stale.committed, stale.checkpointReread?.skip, stale.failoverReread?.skip]).toEqual([120n, "none", "none"]);
    // Read after the checkpoint was written, the group is really behind it: a failover would skip.
    const rewound = translateApp({}, { flow: later, sourceGroups: group(T0 - 1_000) }).get("orders/0")!;
    expect([rewound.committed, rewound.checkpointReread?.records, rewound.failoverReread?.skip]).toEqual([100n, -20n, "certain"]);
  });

  it("uses the latest checkpoint for the failover re-read, the model's translation where MM2 has not checkpointed yet", () => {
    const flow = makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n)] });
    const rows = translateApp({ "orders/0": 150n }, { flow });
    expect(rows.get("orders/0")!.failoverReread?.records).toBe(49n);
    const noCheckpoint = translateApp({ "orders/0": 150n });
    expect(noCheckpoint.get("orders/0")!.failoverReread?.records).toBe(49n);
  });
});

describe("translateFlow: translations shared by the rows of one sync", () => {
  it("rows at and past the same sync share one translation each, from cycle to cycle, until a newer sync translates them", () => {
    const history = makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) });
    const cache = new SyncModelCache();
    const translate = (offsets: Record<string, Record<string, bigint>>) => {
      const groups = Object.entries(offsets).map(([id, o]) => makeGroup(id, o));
      const ft = translateFlow({ flow: makeFlow(), sourceGroups: groups, syncHistory: history, now: T0, cache });
      return new Map(ft.groups.map((g) => [g.group, g.partitions[0]!.translation]));
    };
    const first = translate({ a: { "orders/0": 250n }, b: { "orders/0": 260n }, c: { "orders/0": 200n } });
    expect(first.get("a")).toEqual({ kind: "translated", downstream: 201n, syncUpstream: 200n, syncDownstream: 200n });
    expect(first.get("b")).toBe(first.get("a"));
    expect(first.get("c")).toEqual({ kind: "translated", downstream: 200n, syncUpstream: 200n, syncDownstream: 200n });
    // The next cycle: the groups moved, the same sync translates them, with the same objects.
    const second = translate({ a: { "orders/0": 270n }, c: { "orders/0": 200n } });
    expect(second.get("a")).toBe(first.get("a"));
    expect(second.get("c")).toBe(first.get("c"));
    // A newer sync arrives: rows past it translate from it; a row below it still from (200, 200), rightly.
    history.get([...history.keys()][0]!)!.push({ upstream: 300n, downstream: 300n });
    const third = translate({ a: { "orders/0": 310n }, b: { "orders/0": 300n }, c: { "orders/0": 250n } });
    expect(third.get("a")).toEqual({ kind: "translated", downstream: 301n, syncUpstream: 300n, syncDownstream: 300n });
    expect(third.get("b")).toEqual({ kind: "translated", downstream: 300n, syncUpstream: 300n, syncDownstream: 300n });
    expect(third.get("c")).toEqual({ kind: "translated", downstream: 201n, syncUpstream: 200n, syncDownstream: 200n });
  });
});

describe("translateFlow: groups and totals", () => {
  it("translates only groups MM2 checkpoints: the groups filter, the default exclude, and offsets on replicated topics", () => {
    const ft = translateFlow({
      flow: makeFlow({ groupsFilter: "orders-.*, billing" }),
      sourceGroups: [
        makeGroup("orders-app", { "orders/0": 150n }),
        makeGroup("billing", { "orders/0": 100n }),
        makeGroup("other", { "orders/0": 100n }),
        makeGroup("orders-console", { "payments/0": 1n }),
      ],
      syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }),
      now: T0,
    });
    expect(ft.groups.map((g) => g.group)).toEqual(["billing", "orders-app"]);
    expect(ft.excludedGroups).toEqual(["other"]);

    const defaults = translateFlow({
      flow: makeFlow(),
      sourceGroups: ["console-consumer-4711", "connect-mm2", "__internal", "app"].map((g) => makeGroup(g, { "orders/0": 100n })),
      syncHistory: new Map(),
      now: T0,
    });
    expect(defaults.groups.map((g) => g.group)).toEqual(["app"]);
    expect(defaults.excludedGroups).toEqual(["__internal", "connect-mm2", "console-consumer-4711"]);
  });

  it("sums re-reads, failover replay, lag and untranslatable partitions per group and per flow", () => {
    const ft = translateFlow({
      flow: makeFlow({ checkpoints: [makeCheckpoint("a", "orders", 0, 100n, 100n, 60_000)] }),
      sourceGroups: [makeGroup("a", { "orders/0": 150n, "orders/1": 10n }), makeGroup("b", { "orders/0": 250n })],
      syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }),
      now: T0,
    });
    const [a, b] = ft.groups;
    expect(a!.totals).toEqual({
      partitions: 2,
      translated: 1,
      untranslatable: 1,
      rereadRecords: 49n,
      failoverReplayRecords: 50n,
      skippingPartitions: 0,
      groupLag: 9_850n + 9_990n,
      oldestCheckpointAgeMs: 60_000,
    });
    expect(b!.totals.rereadRecords).toBe(49n);
    expect(ft.totals).toMatchObject({ groups: 2, partitions: 3, rereadRecords: 98n, failoverReplayRecords: 99n, untranslatable: 1 });
    expect(ft.flow).toBe(FLOW);
  });

  it("ignores groups without a committed offset (−1) and a partition history of another flow", () => {
    const ft = translateFlow({
      flow: makeFlow({ partitions: [makeFlowPartition()] }),
      sourceGroups: [makeGroup("a", { "orders/0": -1n })],
      syncHistory: new Map([["west->east|orders|0", syncs([0, 0])]]),
      now: T0,
    });
    expect(ft.groups).toEqual([]);
  });
});

describe("translateFlow on a flow with emit.offset-syncs.enabled=false", () => {
  it("translates nothing: every re-read figure is unavailable with the reason, never counted from old syncs", () => {
    const flow = makeFlow({ sourceTaskSettings: { offsetSyncsEnabled: false, autoOffsetReset: "earliest" } });
    // Syncs an earlier run of MM2 left in the topic: with syncs on they would translate 150 to 101.
    const ft = translateFlow({ flow, sourceGroups: [makeGroup("app", { "orders/0": 150n })], syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100]) }), now: T0 });
    const [row] = ft.groups[0]!.partitions;
    expect(row).toMatchObject({
      translation: { kind: "untranslatable", reason: "offset-syncs-disabled" },
      ideal: { kind: "unknown", reason: "offset-syncs-disabled" },
      reread: null,
      checkpointReread: null,
      failoverReread: null,
      groupLag: 9_850n,
    });
    expect(ft.totals).toMatchObject({ translated: 0, untranslatable: 1, rereadRecords: 0n, failoverReplayRecords: 0n, skippingPartitions: 0 });
    // No TRANSLATION_ERROR even at a threshold of 0 records, and no CHECKPOINT_STALE however long MM2 writes none.
    expect(detectTranslationErrors(ft, T0, { replayRecords: 0 })).toEqual([]);
    const watch = new CheckpointWatchState();
    expect(watch.judge(ft, T0, { replayRecords: 0, checkpointStaleMs: 1 })).toEqual([]);
    expect(watch.judge(ft, T0 + 3_600_000, { replayRecords: 0, checkpointStaleMs: 1 })).toEqual([]);
  });
});
