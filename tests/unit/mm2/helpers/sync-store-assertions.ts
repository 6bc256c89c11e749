/**
 * Ports of the helper methods of Kafka's OffsetSyncStoreTest (connect/mirror/src/test/java/org/
 * apache/kafka/connect/mirror/OffsetSyncStoreTest.java): sync(), assertSparseSync(),
 * assertSparseSyncInvariant(), countDistinctStoredSyncs() and assertSyncSpacingHasBoundedExpirations().
 */
import { expect } from "vitest";
import { createOffsetSyncStore, toOptionalLong, type OffsetSyncStore } from "@/lib/mm2/offset-sync-store";
import { encodeOffsetSyncKey, encodeOffsetSyncValue } from "@/lib/mm2/record-encoders";
import type { TopicPartition } from "@/lib/mm2/types";

/** The Java test's partition: new TopicPartition("topic1", 2). */
export const tp: TopicPartition = { topic: "topic1", partition: 2 };

/** FakeOffsetSyncStore.sync: serialize like MM2 and feed through handleRecord. */
export function sync(store: OffsetSyncStore, partition: TopicPartition, upstream: bigint, downstream: bigint): void {
  store.handleRecord(encodeOffsetSyncKey(partition), encodeOffsetSyncValue({ upstream, downstream }));
}

/** Java translateDownstream(null, tp, offset) as OptionalLong (null = empty). */
export function translate(store: OffsetSyncStore, upstream: bigint): bigint | null {
  return toOptionalLong(store.translateDownstream(null, tp, upstream));
}

/** Java syncFor(tp, index).upstreamOffset(). */
export function getUpstreamAt(store: OffsetSyncStore, partition: TopicPartition, index: number): bigint | undefined {
  return store.getSlots(partition)?.[index]?.upstream;
}

/** assertSparseSync: syncOffset is retained and previousOffset (or nothing, -1) is the sync before it. */
export function assertSparseSync(store: OffsetSyncStore, syncOffset: bigint, previousOffset: bigint): void {
  expect(translate(store, syncOffset - 1n)).toBe(previousOffset === -1n ? -1n : previousOffset + 1n);
  expect(translate(store, syncOffset)).toBe(syncOffset);
  expect(translate(store, syncOffset + 1n)).toBe(syncOffset + 1n);
  expect(translate(store, syncOffset + 2n)).toBe(syncOffset + 1n);
}

/** countDistinctStoredSyncs: adjacent slots compared by identity, like Java's `!=`. */
export function countDistinctStoredSyncs(store: OffsetSyncStore, partition: TopicPartition): number {
  const slots = store.getSlots(partition) ?? [];
  return slots.filter((slot, i) => i === 0 || slot !== slots[i - 1]).length;
}

const wrap = (value: bigint): bigint => BigInt.asIntN(64, value);
const pow2 = (k: number): bigint => wrap(1n << BigInt(k));

/** Violations of invariants B and C for every pair i < j, computed with Java long overflow. */
export function findSparseSyncViolations(store: OffsetSyncStore, partition: TopicPartition): string[] {
  const slots = store.getSlots(partition) ?? [];
  const violations: string[] = [];
  for (let j = 0; j < slots.length; j++) {
    for (let i = 0; i < j; i++) {
      const jUpstream = slots[j]?.upstream ?? 0n;
      const iUpstream = slots[i]?.upstream ?? 0n;
      if (jUpstream === iUpstream) continue;
      const lower = wrap(jUpstream + pow2(Math.max(i - 2, 0)));
      if (lower < 0n) continue;
      if (iUpstream < lower) violations.push(`C(${i},${j}): ${iUpstream} < ${lower}`);
      const upper = wrap(jUpstream + pow2(j) - pow2(i));
      if (upper < 0n) continue;
      if (iUpstream > upper) violations.push(`B(${i},${j}): ${iUpstream} > ${upper}`);
    }
  }
  return violations;
}

/** assertSparseSyncInvariant. */
export function assertSparseSyncInvariant(store: OffsetSyncStore, partition: TopicPartition): void {
  expect(findSparseSyncViolations(store, partition)).toEqual([]);
}

/**
 * assertSyncSpacingHasBoundedExpirations: feed firstOffset then firstOffset + cumulative steps to a
 * started store; after each sync, A and D hold and at most maximumExpirations distinct syncs expired.
 */
export function assertSyncSpacingHasBoundedExpirations(firstOffset: bigint, steps: Iterable<bigint>, maximumExpirations: number): void {
  const store = createOffsetSyncStore({ initializationMustReadToEnd: true });
  store.markReadToEnd();
  sync(store, tp, firstOffset, firstOffset);
  let offset = firstOffset;
  let lastCount = 1;
  // Plain comparisons with expect.fail on the first failure: ~10^5 syncs, expect() per sync is slow.
  for (const step of steps) {
    offset += step;
    if (offset < 0n || offset !== wrap(offset)) expect.fail("Test is invalid, offset overflowed");
    store.addSync({ ...tp, upstream: offset, downstream: offset });
    if (getUpstreamAt(store, tp, 0) !== offset) expect.fail(`Invariant A broken after ${offset}`);
    if (getUpstreamAt(store, tp, 63) !== firstOffset) expect.fail(`Invariant D broken after ${offset}`);
    const count = countDistinctStoredSyncs(store, tp);
    const expiredSyncs = lastCount - count + 1;
    if (expiredSyncs > maximumExpirations) {
      expect.fail(`Store expired too many syncs: ${expiredSyncs} > ${maximumExpirations} after receiving offset ${offset}`);
    }
    lastCount = count;
  }
}
