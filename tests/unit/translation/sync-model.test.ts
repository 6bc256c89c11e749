import { describe, expect, it } from "vitest";
import { createOffsetSyncStore, type SyncPoint } from "@/lib/mm2";
import { mapIdealOffset, replaySyncHistory } from "@/lib/translation";
import { FlowSyncModels } from "@/lib/translation/sync-model";
import { readPointHistory } from "@/lib/collector/sync-history";
import { steadySyncs, syncs } from "./fixtures";

const tp = { topic: "orders", partition: 0 };

/** Java's translation of every offset in [from, to] by a store, as strings (compact comparison). */
function translateRange(store: ReturnType<typeof replaySyncHistory>, from: number, to: number): string[] {
  const out: string[] = [];
  for (let u = from; u <= to; u++) {
    const t = store.translateDownstream(null, tp, BigInt(u));
    out.push(t.kind === "translated" ? t.downstream.toString() : t.kind);
  }
  return out;
}

describe("replaySyncHistory models MirrorCheckpointTask's store", () => {
  it("by default keeps history through start-up, exactly like a store that read every sync after start", () => {
    const history = steadySyncs(10, 3000);
    const live = createOffsetSyncStore({ initializationMustReadToEnd: true });
    live.markReadToEnd();
    for (const s of history) live.addSync({ ...tp, ...s });
    const replayed = replaySyncHistory(tp, history);
    expect(replayed.getSlots(tp)!.map((s) => s.upstream)).toEqual(live.getSlots(tp)!.map((s) => s.upstream));
    expect(translateRange(replayed, 0, 3005)).toEqual(translateRange(live, 0, 3005));
  });

  it("with the wiping start-up only the last sync read during the load survives", () => {
    const store = replaySyncHistory(tp, syncs([0, 0], [100, 100], [200, 200], [300, 300]), { initializationMustReadToEnd: true, syncsReadAtStartup: 3 });
    expect(store.listRetainedSyncs(tp).map((s) => s.upstream)).toEqual([300n, 200n]);
    expect(store.translateDownstream(null, tp, 150n)).toMatchObject({ kind: "too-old" });
  });
});

/** A FlowSyncModels partition's slots as upstream offsets, one per slot (as the bigint model's getSlots reads). */
function slotUpstreams(models: FlowSyncModels, p: number): bigint[] {
  const out: bigint[] = [];
  const slots = models.slots;
  for (let k = 0; k < slots.countRuns(p); k++) {
    const at = slots.runAt(p, k);
    while (out.length <= slots.lastSlotAt(at)) out.push(BigInt(slots.upstreamAt(at)));
  }
  return out;
}

function modelUpstreams(history: readonly SyncPoint[]): bigint[] {
  return replaySyncHistory(tp, history).getSlots(tp)!.map((s) => s.upstream);
}

describe("FlowSyncModels", () => {
  it("feeds only new syncs and ends in the same state as a fresh replay, its latest epoch followed", () => {
    const history: SyncPoint[] = [];
    const models = new FlowSyncModels();
    for (const chunk of [steadySyncs(10, 500), steadySyncs(10, 900).slice(51), steadySyncs(10, 2000).slice(91)]) {
      history.push(...chunk);
      models.update(0, readPointHistory(history), 0);
      expect(slotUpstreams(models, 0)).toEqual(modelUpstreams(history));
    }
    expect(models.epochStart(0)).toBe(0);
    // A truncation starts a new epoch; a repeat continues it.
    history.push(...syncs([2010, 1500], [2010, 1500], [2020, 1510]));
    models.update(0, readPointHistory(history), 0);
    expect(models.epochStart(0)).toBe(201);
    expect(slotUpstreams(models, 0)).toEqual(modelUpstreams(history));
  });

  it("replays with the wiping start-up the options name", () => {
    const history = syncs([0, 0], [100, 100], [200, 200], [300, 300]);
    const models = new FlowSyncModels({ initializationMustReadToEnd: true, syncsReadAtStartup: 3 });
    models.update(0, readPointHistory(history), 0);
    expect(slotUpstreams(models, 0)).toEqual(replaySyncHistory(tp, history, { initializationMustReadToEnd: true, syncsReadAtStartup: 3 }).getSlots(tp)!.map((s) => s.upstream));
  });

  it("finds its place again after the history was trimmed at the front (keeping what MM2's store holds), and replays when it cannot", () => {
    const history = steadySyncs(10, 1000);
    const models = new FlowSyncModels();
    models.update(0, readPointHistory(history), 0);
    history.splice(0, 50);
    history.push(...syncs([1010, 1010]));
    models.update(0, readPointHistory(history), 0);
    // MM2's store still holds the trimmed syncs: the oldest slot is the first sync ever read, not the history's first.
    expect(slotUpstreams(models, 0).at(-1)).toBe(0n);
    expect(models.epochStart(0)).toBe(0);
    const unrelated = syncs([5, 5], [6, 6]);
    models.update(0, readPointHistory(unrelated), 0);
    expect(slotUpstreams(models, 0)).toEqual(modelUpstreams(unrelated));
  });

  it("keeps a model looked up within 60 cycles and replays one unused for 61", () => {
    const [kept, dropped] = [steadySyncs(10, 1000), steadySyncs(10, 1000)];
    const models = new FlowSyncModels();
    models.update(0, readPointHistory(kept), 0);
    models.update(1, readPointHistory(dropped), 0);
    for (const history of [kept, dropped]) {
      history.splice(0, 50);
      history.push(...syncs([1010, 1010]));
    }
    models.update(0, readPointHistory(kept), 60);
    models.update(1, readPointHistory(dropped), 61);
    expect(slotUpstreams(models, 0).at(-1)).toBe(0n);
    expect(slotUpstreams(models, 1)).toEqual(modelUpstreams(dropped));
    expect(slotUpstreams(models, 1).at(-1)).toBe(500n);
  });

  it("refuses a sync outside the int64 range, as OffsetSyncStore.addSync does", () => {
    const models = new FlowSyncModels();
    expect(() => models.update(0, readPointHistory([{ upstream: 2n ** 63n, downstream: 0n }]), 0)).toThrow(/outside the int64 range/);
  });
});

describe("mapIdealOffset", () => {
  const epoch = syncs([100, 1000], [200, 1100], [400, 1150]);

  it("is exact at a sync and inside a one-to-one run", () => {
    expect(mapIdealOffset(epoch, 100n)).toEqual({ kind: "exact", downstream: 1000n, basis: "sync" });
    expect(mapIdealOffset(epoch, 150n)).toEqual({ kind: "exact", downstream: 1050n, basis: "one-to-one-run" });
  });

  it("brackets inside an upstream gap", () => {
    expect(mapIdealOffset(epoch, 300n)).toEqual({ kind: "bracket", low: 1101n, high: 1150n, reason: "upstream-gap" });
  });

  it("bounds the bracket beyond the newest sync, and is exact one past it", () => {
    expect(mapIdealOffset(epoch, 450n)).toEqual({ kind: "bracket", low: 1151n, high: 1200n, reason: "beyond-newest-sync" });
    expect(mapIdealOffset(epoch, 401n)).toEqual({ kind: "exact", downstream: 1151n, basis: "pinned-by-bounds" });
    // At the newest sync itself, exact; beyond it the same bounds on a target that is not dense (no next sync to
    // compare densities with).
    expect(mapIdealOffset(epoch, 400n)).toEqual({ kind: "exact", downstream: 1150n, basis: "sync" });
    expect(mapIdealOffset(epoch, 450n, false)).toEqual({ kind: "bracket", low: 1151n, high: 1200n, reason: "beyond-newest-sync" });
    expect(mapIdealOffset(syncs([5, 9]), 5_000n)).toEqual({ kind: "bracket", low: 10n, high: 5_004n, reason: "beyond-newest-sync" });
  });

  it("on a target that is not dense (markers, other writers) brackets from the sync before, so a plan never skips", () => {
    // With transaction markers between 1000 and 1100 the record of upstream 150 sits anywhere in 1051..1100.
    expect(mapIdealOffset(epoch, 150n, false)).toEqual({ kind: "bracket", low: 1001n, high: 1100n, reason: "downstream-gap" });
    expect(mapIdealOffset(epoch, 200n, false)).toEqual({ kind: "exact", downstream: 1100n, basis: "sync" });
  });

  it("is unknown before the first sync and without syncs", () => {
    expect(mapIdealOffset(epoch, 99n)).toEqual({ kind: "unknown", reason: "before-first-sync" });
    expect(mapIdealOffset([], 5n)).toEqual({ kind: "unknown", reason: "no-sync" });
  });
});
