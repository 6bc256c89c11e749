import { describe, expect, it } from "vitest";
import { createOffsetSyncStore, type SyncPoint } from "@/lib/mm2";
import { mapIdealOffset, replaySyncHistory, SyncModelCache } from "@/lib/translation";
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

describe("SyncModelCache", () => {
  it("feeds only new syncs and ends in the same state as a fresh replay", () => {
    const history: SyncPoint[] = [];
    const cache = new SyncModelCache();
    for (const chunk of [steadySyncs(10, 500), steadySyncs(10, 900).slice(51), steadySyncs(10, 2000).slice(91)]) {
      history.push(...chunk);
      cache.lookup("k", tp, history);
    }
    const { store, epoch } = cache.lookup("k", tp, history);
    expect(translateRange(store, 0, 2002)).toEqual(translateRange(replaySyncHistory(tp, history), 0, 2002));
    expect(epoch).toHaveLength(201);
  });

  it("finds its place again after the history was trimmed at the front, and rebuilds when it cannot", () => {
    const history = steadySyncs(10, 1000);
    const cache = new SyncModelCache();
    const first = cache.lookup("k", tp, history).store;
    history.splice(0, 50);
    history.push(...syncs([1010, 1010]));
    expect(cache.lookup("k", tp, history).store).toBe(first);
    expect(first.translateDownstream(null, tp, 1010n)).toMatchObject({ kind: "translated", downstream: 1010n });
    const unrelated = syncs([5, 5], [6, 6]);
    expect(cache.lookup("k", tp, unrelated).store).not.toBe(first);
  });

  it("keeps a model whose history did not change, and refuses one whose array took a sync or was trimmed in place", () => {
    const history = steadySyncs(10, 1000);
    const cache = new SyncModelCache();
    const model = cache.lookup("k", tp, history);
    expect(cache.keep(model, history)).toBe(true);
    // The same contents in another array: looked up again (the collector replaced its array).
    expect(cache.keep(model, history.slice())).toBe(false);
    // One sync in, one out at the front: the same array at the same length, and not the same history.
    history.push(...syncs([1010, 1010]));
    history.shift();
    expect(cache.keep(model, history)).toBe(false);
    expect(cache.lookup("k", tp, history, model)).toBe(model);
    expect(cache.keep(model, history)).toBe(true);
    history.push(...syncs([1020, 1020]));
    expect(cache.keep(model, history)).toBe(false);
  });

  it("a kept model counts as used: endCycle drops it only after 60 cycles without a lookup or a keep", () => {
    const history = steadySyncs(10, 100);
    const cache = new SyncModelCache();
    const model = cache.lookup("k", tp, history);
    for (let cycle = 1; cycle <= 100; cycle++) {
      cache.endCycle();
      expect(cache.keep(model, history)).toBe(true);
    }
    for (let cycle = 1; cycle <= 61; cycle++) cache.endCycle();
    expect(cache.keep(model, history)).toBe(false);
    expect(cache.lookup("k", tp, history, model)).not.toBe(model);
  });

  it("keeps a model looked up within 60 cycles and drops one unused for 60 whole cycles", () => {
    const history = steadySyncs(10, 100);
    const cache = new SyncModelCache();
    const kept = cache.lookup("kept", tp, history).store;
    const dropped = cache.lookup("dropped", tp, history).store;
    for (let cycle = 1; cycle <= 59; cycle++) {
      cache.endCycle();
      cache.lookup("kept", tp, history);
    }
    expect(cache.lookup("dropped", tp, history).store).toBe(dropped);
    for (let cycle = 1; cycle <= 61; cycle++) {
      cache.endCycle();
      cache.lookup("kept", tp, history);
    }
    expect(cache.lookup("kept", tp, history).store).toBe(kept);
    expect(cache.lookup("dropped", tp, history).store).not.toBe(dropped);
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
