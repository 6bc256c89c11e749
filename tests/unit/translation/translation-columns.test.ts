import { describe, expect, it } from "vitest";
import { createOffsetSyncStore, selectLatestEpoch, type SyncPoint, toOptionalLong } from "@/lib/mm2";
import { FlowPartitionIndex, FlowPartitionPlacer } from "@/lib/translation/flow-partition-index";
import { listTranslationSamples } from "@/lib/pipeline/flow-translator";
import { readGroupRows, sampleRow } from "@/lib/translation/translation-rows";
import {
  estimateReread, type FlowTranslation, mapIdealOffset, SyncModelCache, translateFlow, type PartitionTranslation, type TranslateFlowInput,
} from "@/lib/translation";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { flowPartitionKey } from "@/lib/collector/types";
import { CheckpointIndex } from "@/lib/translation/checkpoint-index";
import { FLOW, makeCheckpoint, makeFlow, makeFlowPartition, makeGroup, makeHistory, readSampleColumns, syncs, T0 } from "./fixtures";

const twoTo53 = 2n ** 53n;

function translate(input: Partial<TranslateFlowInput> & Pick<TranslateFlowInput, "sourceGroups" | "syncHistory">): FlowTranslation {
  return translateFlow({ flow: makeFlow(), now: T0, ...input });
}

/** The rows of group "app" by "topic/partition". */
function rowsOf(ft: FlowTranslation, group = "app"): PartitionTranslation[] {
  const g = ft.groups.find((x) => x.group === group);
  if (!g) throw new Error(`group ${group} not translated`);
  return g.partitions;
}

describe("translation columns: offsets as float64, exact below 2^53", () => {
  it("a committed offset at 2^53 fails the flow's translation with an error naming the partition", () => {
    const history = makeHistory({ 3: syncs([0, 0], [100, 100]) });
    const run = () => translate({ sourceGroups: [makeGroup("app", { "orders/3": twoTo53 })], syncHistory: history });
    expect(run).toThrow(RangeError);
    expect(run).toThrow(/committed offset 9007199254740992 of orders\/3 \(flow east->west\) is beyond 2\^53/);
  });

  it("an offset sync at 2^53 fails with an error naming its partition; one just below translates", () => {
    const big = [{ upstream: 0n, downstream: 0n }, { upstream: 10n, downstream: twoTo53 }];
    const run = () => translate({ sourceGroups: [makeGroup("app", { "orders/1": 5n })], syncHistory: makeHistory({ 1: big }) });
    expect(run).toThrow(/offset sync downstream 9007199254740992 of orders\/1 \(flow east->west\)/);
    const below = [{ upstream: 0n, downstream: 0n }, { upstream: 10n, downstream: twoTo53 - 1n }];
    const row = rowsOf(translate({ sourceGroups: [makeGroup("app", { "orders/1": 10n })], syncHistory: makeHistory({ 1: below }) }))[0]!;
    expect(row.translation).toEqual({ kind: "translated", downstream: twoTo53 - 1n, syncUpstream: 10n, syncDownstream: twoTo53 - 1n });
  });

  it("values between 2^52 and 2^53 are computed with bigints, exactly (a sum there could round as a float64)", () => {
    const base = 2n ** 52n + 1n;
    const history = makeHistory({ 0: [{ upstream: 0n, downstream: base }, { upstream: 100n, downstream: base + 100n }] });
    const partitions = [makeFlowPartition({ partition: 0, sourceLogEnd: 2n ** 53n - 7n })];
    const ft = translate({ flow: makeFlow({ partitions }), sourceGroups: [makeGroup("app", { "orders/0": 150n })], syncHistory: history });
    const row = rowsOf(ft)[0]!;
    expect(row.translation).toMatchObject({ kind: "translated", downstream: base + 101n });
    expect(row.ideal).toEqual({ kind: "bracket", low: base + 101n, high: base + 150n, reason: "beyond-newest-sync" });
    expect(row.groupLag).toBe(2n ** 53n - 7n - 150n);
    expect(ft.totals.groupLag).toBe(2n ** 53n - 7n - 150n);
  });

  it("every numeric row answers what the bigint rules answer (lib/mm2's store, mapIdealOffset, estimateReread)", () => {
    // A history with a one-to-one run, an upstream gap, a downstream gap and a newest sync; offsets before, at, between
    // and beyond the syncs, dense and not dense.
    const history: SyncPoint[] = syncs([100, 50], [200, 150], [400, 200], [450, 300], [600, 450]);
    const offsets = [100n, 150n, 200n, 250n, 399n, 400n, 420n, 449n, 450n, 500n, 600n, 601n, 700n];
    for (const dense of [true, false]) {
      const partitions = [makeFlowPartition({ partition: 0, targetDensityIssue: dense ? null : "transaction markers" })];
      const groups = offsets.map((offset, i) => makeGroup(`g${String(i).padStart(2, "0")}`, { "orders/0": offset }));
      const ft = translate({ flow: makeFlow({ partitions }), sourceGroups: groups, syncHistory: makeHistory({ 0: history }) });
      const store = createOffsetSyncStore({ initializationMustReadToEnd: false });
      for (const s of history) store.addSync({ topic: "orders", partition: 0, ...s });
      store.markReadToEnd();
      const epoch = selectLatestEpoch(history);
      ft.groups.forEach((g, i) => {
        const row = g.partitions[0]!;
        const committed = offsets[i]!;
        const translated = toOptionalLong(store.translateDownstream(g.group, { topic: "orders", partition: 0 }, committed));
        const ideal = mapIdealOffset(epoch, committed, dense);
        expect([committed, row.translation.kind === "translated" ? row.translation.downstream : null]).toEqual([committed, translated]);
        expect([committed, row.ideal]).toEqual([committed, ideal]);
        expect([committed, row.reread]).toEqual([committed, estimateReread(ideal, translated)]);
      });
    }
  });

  it("the detectors' reader answers from the columns what it answers from the rows as objects (a decoded read model)", () => {
    const flow = makeFlow({
      checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n), makeCheckpoint("app", "orders", 1, 180n, 181n), makeCheckpoint("app", "orders", 2, 90n, 90n)],
    });
    const history = makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([0, 0], [100, 100], [200, 200]), 2: syncs([0, 0], [100, 100]) });
    const ft = translate({ flow, sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": 150n, "orders/2": 100n, "orders/3": 5n, "other/0": 1n })], syncHistory: history });
    const group = ft.groups[0]!;
    const columns = readGroupRows(group);
    const objects = readGroupRows({ partitions: group.partitions.map((p) => ({ ...p })) });
    const answers = (reader: typeof columns) =>
      Array.from({ length: reader.length }, (_, i) => [reader.topic(i), reader.partition(i), reader.isSkipping(i), reader.isCheckpointOwed(i), reader.checkpoint(i)?.upstream ?? null]);
    // orders/0: the checkpoint is at MM2's translation; orders/1: the group moved back below it (owed, and it skips);
    // orders/2: the group moved on past it; orders/3: no sync; other/0: not replicated.
    expect(answers(columns)).toEqual([
      ["orders", 0, false, false, 120n],
      ["orders", 1, true, true, 180n],
      ["orders", 2, false, true, 90n],
      ["orders", 3, false, false, null],
      ["other", 0, false, false, null],
    ]);
    expect(answers(objects)).toEqual(answers(columns));
    expect(objects.hasCheckpoint()).toBe(true);
    expect(columns.hasCheckpoint()).toBe(true);
    expect(columns.checkpoint(0)).toMatchObject({ upstream: 120n, downstream: 101n });
  });

  it("the store's samples read from the columns equal the samples of the rows made as objects", () => {
    const flow = makeFlow({
      partitions: [0, 1, 2].map((partition) => makeFlowPartition({ partition, sourceLogEnd: partition === 2 ? null : 10_000n })),
      checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n), makeCheckpoint("app", "orders", 1, 180n, 181n)],
    });
    const history = makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([50, 40], [300, 150]), 2: syncs([10, 10], [20, 20]) });
    const groups = [makeGroup("app", { "orders/0": 150n, "orders/1": 60n, "orders/2": 5n, "orders/3": 5n }), makeGroup("web", { "orders/1": 400n, "orders/2": 15n })];
    const ft = translate({ flow, sourceGroups: groups, syncHistory: history });
    const columns = listTranslationSamples(ft);
    const samples = readSampleColumns(columns);
    expect(samples).toEqual(ft.groups.flatMap((g) => g.partitions.map((p) => sampleRow(g.group, p))));
    // Every value is exact: every column is numbers, no bigint per sample.
    expect([columns.committed, columns.idealLow, columns.failoverReread, columns.groupLag].every((c) => c instanceof Float64Array)).toBe(true);
    // A translation without its columns (a copy, as a decoded read model's) gives the same samples from its rows.
    expect(readSampleColumns(listTranslationSamples({ ...ft }))).toEqual(samples);
    expect(samples.map((s) => [s.group, s.partition, s.idealLow, s.failoverReread, s.groupLag])).toEqual([
      // At MM2's translation's checkpoint; below a checkpoint (an upstream-gap bracket, 41..50, against 181); its log
      // end unknown; not replicated; beyond the newest sync (151..250 against 151); a one-to-one run (15 against 11).
      ["app", 0, 150n, 49n, 9_850n],
      ["app", 1, 41n, -131n, 9_940n],
      ["app", 2, null, null, null],
      ["app", 3, null, null, null],
      ["web", 1, 151n, 99n, 9_600n],
      ["web", 2, 15n, 4n, null],
    ]);
  });

  it("the samples' key columns are last cycle's arrays while every group lists the same partitions", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]) });
    const flow = makeFlow({ partitions: [0, 1].map((partition) => makeFlowPartition({ partition })) });
    const cycle = (groups: ReturnType<typeof makeGroup>[]) => {
      const ft = translate({ flow, sourceGroups: groups, syncHistory: history, cache });
      const columns = listTranslationSamples(ft);
      expect(readSampleColumns(columns)).toEqual(ft.groups.flatMap((g) => g.partitions.map((p) => sampleRow(g.group, p))));
      return columns;
    };
    const one = cycle([makeGroup("app", { "orders/0": 150n }), makeGroup("web", { "orders/1": 70n })]);
    const two = cycle([makeGroup("app", { "orders/0": 160n }), makeGroup("web", { "orders/1": 80n })]);
    expect([two.groups, two.topics, two.partitions]).toEqual([["app", "web"], ["orders", "orders"], [0, 1]]);
    expect(two.groups).toBe(one.groups);
    expect(two.partitions).toBe(one.partitions);
    // A group commits on another partition: new arrays (the last ones are never changed).
    const three = cycle([makeGroup("app", { "orders/0": 160n, "orders/1": 5n }), makeGroup("web", { "orders/1": 80n })]);
    expect(three.groups).not.toBe(two.groups);
    expect([three.groups, three.partitions, one.partitions]).toEqual([["app", "app", "web"], [0, 1, 1], [0, 1]]);
  });

  it("a group's rows serialise as before: JSON and the keys a digest reads show `partitions`, not the columns", () => {
    const ft = translate({ sourceGroups: [makeGroup("app", { "orders/0": 150n })], syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100]) }) });
    const group = ft.groups[0]!;
    expect(Object.keys(group)).toEqual(["group", "groupType", "state", "members", "unknown", "partitions", "totals"]);
    expect(Object.getOwnPropertySymbols(group).every((s) => !Object.getOwnPropertyDescriptor(group, s)!.enumerable)).toBe(true);
    expect(group.partitions).toBe(group.partitions);
    expect({ ...group }.partitions).toEqual([
      expect.objectContaining({ topic: "orders", partition: 0, committed: 150n, reread: { min: 0n, max: 49n, records: 49n, skip: "none" } }),
    ]);
  });
});

describe("dense partition indexes, stable across cycles", () => {
  it("a partition added between cycles gets the next index; the others keep theirs", () => {
    const placer = new FlowPartitionPlacer("east->west");
    const first = [0, 1, 2].map((partition) => makeFlowPartition({ partition }));
    const one = placer.place(makeFlow({ partitions: first }));
    const indexes = first.map((fp) => placer.index.indexOf(fp.topic, fp.partition));
    expect(indexes).toEqual([0, 1, 2]);
    // The next cycle lists a new topic's partition first, then the others in another order.
    const added = makeFlowPartition({ topic: "billing", partition: 0 });
    const second = [added, first[2]!, first[0]!, first[1]!];
    const two = placer.place(makeFlow({ partitions: second }));
    expect(first.map((fp) => placer.index.indexOf(fp.topic, fp.partition))).toEqual(indexes);
    expect(placer.index.indexOf("billing", 0)).toBe(3);
    expect(two.at(3)).toBe(added);
    expect(two.at(0)).toBe(first[0]);
    expect([...two.topics].sort()).toEqual(["billing", "orders"]);
    expect(one.at(3)).toBeUndefined();
    // A partition gone this cycle keeps its index, with nothing at it.
    const three = placer.place(makeFlow({ partitions: [added] }));
    expect(three.at(1)).toBeUndefined();
    expect(placer.index.indexOf("orders", 1)).toBe(1);
  });

  it("gives each index the collector's history key of its partition, and −1 to a partition never seen", () => {
    const index = new FlowPartitionIndex("east->west");
    expect(index.ensure("orders", 7)).toBe(0);
    expect(index.ensure("orders", 7)).toBe(0);
    expect(index.keyAt(0)).toBe("east->west|orders|7");
    expect(index.indexOf("orders", 8)).toBe(-1);
    expect(index.size).toBe(1);
  });

  it("rows read the checkpoint MM2 emitted again at its position, and checkpoints listed anew, as a fresh index does", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]) });
    const partitions = [0, 1].map((partition) => makeFlowPartition({ partition }));
    const group = makeGroup("app", { "orders/0": 150n, "orders/1": 70n });
    const lists = [
      [makeCheckpoint("app", "orders", 0, 120n, 101n), makeCheckpoint("app", "orders", 1, 60n, 61n)],
      [makeCheckpoint("app", "orders", 0, 150n, 101n), makeCheckpoint("app", "orders", 1, 60n, 61n)],
      [makeCheckpoint("app", "orders", 1, 70n, 61n)],
      [makeCheckpoint("app", "orders", 1, 70n, 61n), makeCheckpoint("app", "orders", 0, 150n, 101n)],
    ];
    // Each list's checkpoint upstream offsets, by row (partitions 0 and 1).
    const expected = [[120n, 60n], [150n, 60n], [null, 70n], [150n, 70n]];
    for (const [n, checkpoints] of lists.entries()) {
      const flow = makeFlow({ partitions, checkpoints });
      const cached = translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0, cache });
      expect(rowsOf(cached)).toEqual(rowsOf(translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0 })));
      expect(rowsOf(cached).map((r) => r.checkpoint?.upstream ?? null)).toEqual(expected[n]);
      cache.endCycle();
    }
  });

  it("finds each partition's history when the collector's map gains, loses or reorders keys between cycles", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]), 2: syncs([0, 0], [30, 40]) });
    const keys = [...history.keys()];
    const group = makeGroup("app", { "orders/0": 150n, "orders/1": 70n });
    const two = makeFlow({ partitions: [0, 1].map((partition) => makeFlowPartition({ partition })) });
    const three = makeFlow({ partitions: [0, 1, 2].map((partition) => makeFlowPartition({ partition })) });
    const wider = makeGroup("app", { "orders/0": 150n, "orders/1": 70n, "orders/2": 35n });
    const steps: [ReturnType<typeof makeFlow>, ReturnType<typeof makeGroup>, () => void][] = [
      [two, group, () => undefined],
      // Partition 1's history gone; then back, at the map's end.
      [two, group, () => void history.delete(keys[1]!)],
      [two, group, () => void history.set(keys[1]!, syncs([0, 0], [60, 70]))],
      // Partition 2, whose key the map held all along, joins the flow (its index is given after the map was read).
      [three, wider, () => undefined],
      // Another flow's key first: every position moves.
      [three, wider, () => {
        const all = [...history];
        history.clear();
        history.set("west->east|orders|0", syncs([0, 0]));
        for (const [key, list] of all) history.set(key, list);
      }],
    ];
    for (const [flow, g, step] of steps) {
      step();
      const cached = translateFlow({ flow, sourceGroups: [g], syncHistory: history, now: T0, cache });
      const fresh = translateFlow({ flow, sourceGroups: [g], syncHistory: new Map(history), now: T0 });
      expect(rowsOf(cached)).toEqual(rowsOf(fresh));
      cache.endCycle();
    }
    const last = rowsOf(translateFlow({ flow: three, sourceGroups: [wider], syncHistory: history, now: T0, cache }));
    expect(last.map((r) => r.translation.kind === "translated" && r.translation.syncUpstream)).toEqual([100n, 60n, 30n]);
  });

  it("finds a small flow's histories in a map mostly of other flows' keys, cycle after cycle", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]) });
    for (let p = 0; p < 20; p++) history.set(`west->east|orders|${p}`, syncs([0, 0], [300, 300]));
    const flow = makeFlow({ partitions: [makeFlowPartition({ partition: 0 })] });
    const group = makeGroup("app", { "orders/0": 150n });
    for (const step of [() => undefined, () => void history.set([...history.keys()][0]!, syncs([0, 0], [120, 130]))]) {
      step();
      const cached = translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0, cache });
      expect(rowsOf(cached)).toEqual(rowsOf(translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0 })));
      cache.endCycle();
    }
    expect(rowsOf(translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0, cache }))[0]!.translation).toMatchObject({ syncUpstream: 120n, downstream: 131n });
  });

  it("cycle after cycle with one cache, rows follow a history that grows in place, is trimmed in place or is replaced", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]) });
    const flow = makeFlow({ partitions: [0, 1].map((partition) => makeFlowPartition({ partition })) });
    const group = makeGroup("app", { "orders/0": 250n, "orders/1": 70n }, { groupId: "app" });
    const others = [makeGroup("zeta", { "orders/0": 10n }), makeGroup("beta", { "orders/1": 55n })];
    const steps: ((list: SyncPoint[][]) => void)[] = [
      () => undefined,
      ([p0]) => void p0!.push(...syncs([200, 200])),
      ([p0]) => void (p0!.push(...syncs([240, 240])), p0!.shift()),
      ([, p1]) => void history.set([...history.keys()][1]!, [...p1!, ...syncs([60, 70])]),
      () => undefined,
    ];
    // What a cache answers when every cycle's arrays are new (a lookup each time; after a trim it keeps the syncs the
    // store already held, as MM2's store does).
    const looked = new SyncModelCache();
    for (const step of steps) {
      step([...history.values()]);
      const groups = [group, ...others];
      const cached = translateFlow({ flow, sourceGroups: groups, syncHistory: history, now: T0, cache });
      const copies = new Map([...history].map(([key, list]) => [key, list.slice()]));
      const expected = translateFlow({ flow, sourceGroups: groups, syncHistory: copies, now: T0, cache: looked });
      expect(cached.groups.map((g) => g.group)).toEqual(["app", "beta", "zeta"]);
      for (const g of ["app", "beta", "zeta"]) expect(rowsOf(cached, g)).toEqual(rowsOf(expected, g));
    }
    const [p0, p1] = rowsOf(translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0, cache }));
    expect(p0!.translation).toMatchObject({ kind: "translated", syncUpstream: 240n, downstream: 241n });
    expect(p1!.translation).toMatchObject({ kind: "translated", syncUpstream: 60n, downstream: 71n });
  });

  it("a partition that left the flow and came back translates by its whole history, as a fresh replay does", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]) });
    const group = makeGroup("app", { "orders/0": 150n, "orders/1": 400n });
    const both = makeFlow({ partitions: [0, 1].map((partition) => makeFlowPartition({ partition })) });
    const without = makeFlow({ partitions: [makeFlowPartition({ partition: 0 })] });
    translateFlow({ flow: both, sourceGroups: [group], syncHistory: history, now: T0, cache });
    const p1 = [...history.values()][1]!;
    for (let cycle = 0; cycle < 3; cycle++) {
      p1.push(...syncs([100 + cycle * 100, 110 + cycle * 100]));
      const gone = translateFlow({ flow: without, sourceGroups: [group], syncHistory: history, now: T0, cache });
      expect(rowsOf(gone)[1]!.translation).toMatchObject({ kind: "untranslatable", reason: "not-replicated" });
      cache.endCycle();
    }
    const back = translateFlow({ flow: both, sourceGroups: [group], syncHistory: history, now: T0, cache });
    const fresh = translateFlow({ flow: both, sourceGroups: [group], syncHistory: history, now: T0 });
    expect(rowsOf(back)).toEqual(rowsOf(fresh));
    expect(rowsOf(back)[1]!.translation).toEqual({ kind: "translated", downstream: 311n, syncUpstream: 300n, syncDownstream: 310n });
  });

  it("a flow translated again with the same cache keeps its partitions' rows right when a partition is added", () => {
    const cache = new SyncModelCache();
    const history = makeHistory({ 0: syncs([0, 0], [100, 100]), 1: syncs([0, 0], [50, 60]) });
    const group = makeGroup("app", { "orders/0": 150n, "orders/1": 70n });
    const before = translateFlow({ flow: makeFlow({ partitions: [makeFlowPartition({ partition: 1 })] }), sourceGroups: [group], syncHistory: history, now: T0, cache });
    expect(rowsOf(before).map((r) => r.translation.kind)).toEqual(["untranslatable", "translated"]);
    const flow = makeFlow({ partitions: [0, 1].map((partition) => makeFlowPartition({ partition })) });
    const after = translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0, cache });
    const fresh = translateFlow({ flow, sourceGroups: [group], syncHistory: history, now: T0 });
    expect(rowsOf(after)).toEqual(rowsOf(fresh));
    expect(rowsOf(after).map((r) => r.translation)).toEqual([
      { kind: "translated", downstream: 101n, syncUpstream: 100n, syncDownstream: 100n },
      { kind: "translated", downstream: 61n, syncUpstream: 50n, syncDownstream: 60n },
    ]);
    // The row computed before the partition was added still reads as it did.
    expect(rowsOf(before)[0]!.translation).toMatchObject({ kind: "untranslatable", reason: "not-replicated" });
  });

  it("translated cycle after cycle over the collector's store, a flow answers what a fresh translation of the same syncs and checkpoints answers", () => {
    const store = new SyncHistoryStore(20);
    const key = (partition: number) => flowPartitionKey(FLOW, "orders", partition);
    store.append(key(0), syncs([0, 0], [100, 100]));
    store.append(key(1), syncs([0, 10], [50, 60]));
    const partitions = [0, 1, 2].map((partition) => makeFlowPartition({ partition, sourceLogEnd: 1_000n }));
    const cache = new SyncModelCache();
    const index = new CheckpointIndex();
    let checkpoints = [makeCheckpoint("app", "orders", 0, 100n, 100n)];
    // Each cycle: the groups commit further, MM2 writes syncs (orders/2's first one in cycle 2) and checkpoints
    // (added at the list's end, or emitted again in place).
    const cycles = [
      () => {},
      () => {
        store.append(key(0), syncs([200, 200]));
        store.append(key(2), syncs([0, 5]));
        checkpoints = [...checkpoints, makeCheckpoint("app", "orders", 1, 60n, 70n)];
      },
      () => {
        store.append(key(1), syncs([80, 95]));
        checkpoints = [makeCheckpoint("app", "orders", 0, 210n, 210n), checkpoints[1]!, makeCheckpoint("ops", "orders", 2, 3n, 8n)];
      },
      () => {},
    ];
    cycles.forEach((advance, c) => {
      advance();
      const flow = makeFlow({ partitions, checkpoints });
      const groups = [
        makeGroup("app", { "orders/0": BigInt(150 + 30 * c), "orders/1": BigInt(60 + 10 * c), "orders/2": BigInt(c) }),
        makeGroup("ops", { "orders/2": BigInt(2 + c), "orders/0": 100n }),
      ];
      const kept = translateFlow({ flow, sourceGroups: groups, syncHistory: store, now: T0, cache, checkpointIndex: index });
      cache.endCycle();
      const points = new Map([...store.keys()].map((k) => [k, store.list(k)]));
      const fresh = translateFlow({ flow, sourceGroups: groups, syncHistory: points, now: T0 });
      expect([c, kept.groups.map((g) => g.partitions)]).toEqual([c, fresh.groups.map((g) => g.partitions)]);
      expect([c, kept.totals]).toEqual([c, fresh.totals]);
      expect([c, readSampleColumns(listTranslationSamples(kept))]).toEqual([c, readSampleColumns(listTranslationSamples(fresh))]);
    });
  });
});
