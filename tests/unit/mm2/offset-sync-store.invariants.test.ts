/**
 * Randomized checks of the properties OffsetSyncStore.java states and asserts: invariants A–D,
 * monotonic retained syncs, and translations that never overshoot (the "+1 rule"). Seeded, so a
 * failure reproduces.
 */
import { describe, expect, it } from "vitest";
import { createOffsetSyncStore, SYNCS_PER_PARTITION, toOptionalLong, type OffsetSyncStore } from "@/lib/mm2/offset-sync-store";
import type { SyncPoint } from "@/lib/mm2/types";
import { JavaRandom } from "./helpers/java-random";
import { findSparseSyncViolations, tp } from "./helpers/sync-store-assertions";

/** Increasing syncs with random spacing; downstream never advances more than upstream (dense target). */
function generateSyncs(random: JavaRandom, count: number): SyncPoint[] {
  const syncs: SyncPoint[] = [];
  let upstream = random.nextLongBetween(0n, 1000n);
  let downstream = random.nextLongBetween(0n, 1000n);
  for (let k = 0; k < count; k++) {
    syncs.push({ upstream, downstream });
    // Mostly offset.lag.max-like steps, sometimes a large jump (compaction, idle periods).
    const step = random.nextDouble() < 0.05 ? random.nextLongBetween(1n, 1n << 20n) : random.nextLongBetween(1n, 202n);
    upstream += step;
    downstream += random.nextDouble() < 0.8 ? step : random.nextLongBetween(1n, step + 1n);
  }
  return syncs;
}

/** Index of the newest of the first `seen` syncs of `history` with upstream <= offset, or -1. */
function findNewestAtOrBefore(history: readonly SyncPoint[], seen: number, offset: bigint): number {
  let lo = 0;
  let hi = seen - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((history[mid]?.upstream ?? 0n) <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function checkRetainedAreMonotonic(store: OffsetSyncStore): string | null {
  const retained = store.listRetainedSyncs(tp);
  for (let i = 1; i < retained.length; i++) {
    const newer = retained[i - 1];
    const older = retained[i];
    if (!newer || !older || !(older.upstream < newer.upstream && older.downstream < newer.downstream)) {
      return `retained syncs not strictly decreasing at ${i}`;
    }
  }
  return null;
}

/** Translation of u is -1 below the oldest slot, else between the oldest slot and the true bound. */
function checkTranslation(store: OffsetSyncStore, history: readonly SyncPoint[], seen: number, u: bigint): string | null {
  const slots = store.getSlots(tp) ?? [];
  const oldest = slots[SYNCS_PER_PARTITION - 1];
  const translated = toOptionalLong(store.translateDownstream("g", tp, u));
  if (oldest === undefined || translated === null) return `no translation for ${u}`;
  if (u < oldest.upstream) return translated === -1n ? null : `${u} below oldest should be -1, got ${translated}`;
  const newest = history[findNewestAtOrBefore(history, seen, u)];
  if (newest === undefined) return `no sync at or before ${u}`;
  // Never past the true downstream position: at most the newest known sync's downstream (+1 past it).
  const bound = newest.upstream === u ? newest.downstream : newest.downstream + 1n;
  if (translated > bound) return `${u} translated to ${translated}, beyond ${bound}`;
  if (translated < oldest.downstream) return `${u} translated to ${translated}, below oldest ${oldest.downstream}`;
  return null;
}

describe("OffsetSyncStore invariants under 10,000 random syncs", () => {
  it("holds A–D, keeps retained syncs monotonic and never translates past the truth", { timeout: 120_000 }, () => {
    const random = new JavaRandom(42n);
    const history = generateSyncs(random, 10_000);
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    const failures: string[] = [];
    history.forEach((sync, k) => {
      store.addSync({ ...tp, ...sync });
      const slots = store.getSlots(tp) ?? [];
      if (slots[0]?.upstream !== sync.upstream) failures.push(`A broken after #${k}`);
      if (slots[SYNCS_PER_PARTITION - 1]?.upstream !== history[0]?.upstream) failures.push(`D broken after #${k}`);
      const monotonic = checkRetainedAreMonotonic(store);
      if (monotonic) failures.push(`${monotonic} after #${k}`);
      if (k % 25 === 0 || k === history.length - 1) failures.push(...findSparseSyncViolations(store, tp));
      const first = history[0]?.upstream ?? 0n;
      for (let probe = 0; probe < 3; probe++) {
        const u = first - 5n + random.nextLongBetween(0n, sync.upstream - first + 300n);
        const problem = checkTranslation(store, history, k + 1, u);
        if (problem) failures.push(`${problem} after #${k}`);
      }
      if (failures.length > 0) expect.fail(failures.slice(0, 5).join("; "));
    });
    expect(store.listRetainedSyncs(tp).length).toBeLessThanOrEqual(SYNCS_PER_PARTITION);
  });

  it("translates increasing upstream offsets to non-decreasing downstream offsets for a fixed state", () => {
    const random = new JavaRandom(7n);
    const history = generateSyncs(random, 2_000);
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    for (const sync of history) store.addSync({ ...tp, ...sync });
    const last = history[history.length - 1]?.upstream ?? 0n;
    let previous = -1n;
    for (let u = 0n; u <= last + 10n; u += 997n) {
      const translated = toOptionalLong(store.translateDownstream(null, tp, u)) ?? -2n;
      expect(translated).toBeGreaterThanOrEqual(previous);
      previous = translated;
    }
  });
});

describe("OffsetSyncStore resets and start-up", () => {
  it("resets every slot to the new sync when upstream rewinds, then rebuilds history", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    for (const sync of generateSyncs(new JavaRandom(1n), 500)) store.addSync({ ...tp, ...sync });
    store.addSync({ ...tp, upstream: 3n, downstream: 999_999n });
    const slots = store.getSlots(tp) ?? [];
    expect(new Set(slots).size).toBe(1);
    expect(store.listRetainedSyncs(tp)).toEqual([{ upstream: 3n, downstream: 999_999n }]);
    expect(toOptionalLong(store.translateDownstream(null, tp, 2n))).toBe(-1n);
    store.addSync({ ...tp, upstream: 50n, downstream: 1_000_046n });
    expect(store.listRetainedSyncs(tp).map((s) => s.upstream)).toEqual([50n, 3n]);
  });

  it("wipes history during start-up when initialization must read to end, keeping only the last sync", () => {
    const history = generateSyncs(new JavaRandom(2n), 300);
    const store = createOffsetSyncStore({ initializationMustReadToEnd: true });
    for (const sync of history) store.addSync({ ...tp, ...sync });
    store.markReadToEnd();
    expect(store.listRetainedSyncs(tp)).toEqual([history[history.length - 1]]);
  });

  it("loads start-up syncs through the normal update when checkpoints were read", () => {
    const history = generateSyncs(new JavaRandom(3n), 300);
    const loading = createOffsetSyncStore({ initializationMustReadToEnd: false });
    for (const sync of history) loading.addSync({ ...tp, ...sync });
    loading.markReadToEnd();
    const running = createOffsetSyncStore({ initializationMustReadToEnd: true });
    running.markReadToEnd();
    for (const sync of history) running.addSync({ ...tp, ...sync });
    expect(loading.listRetainedSyncs(tp)).toEqual(running.listRetainedSyncs(tp));
    expect(loading.listRetainedSyncs(tp).length).toBeGreaterThan(1);
  });
});
