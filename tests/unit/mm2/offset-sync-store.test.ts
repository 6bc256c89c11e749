/**
 * Kafka's OffsetSyncStoreTest ported as vectors: same inputs, same expected translations.
 * Source: apache/kafka connect/mirror/src/test/java/org/apache/kafka/connect/mirror/
 * OffsetSyncStoreTest.java (3.6 version read in full; the 3.8+ start(boolean) variant from PR #15910).
 */
import { describe, expect, it } from "vitest";
import { MalformedRecordError } from "@/lib/mm2/errors";
import { createOffsetSyncStore, resolveInitializationMustReadToEnd, translateFromSync } from "@/lib/mm2/offset-sync-store";
import { JavaRandom } from "./helpers/java-random";
import {
  assertSparseSync,
  assertSparseSyncInvariant,
  assertSyncSpacingHasBoundedExpirations,
  sync,
  tp,
  translate,
} from "./helpers/sync-store-assertions";

const HEAVY = { timeout: 120_000 };
const upstreams = (store: ReturnType<typeof createOffsetSyncStore>): number[] =>
  store.listRetainedSyncs(tp).map((s) => Number(s.upstream));

describe("OffsetSyncStore (ported from Kafka's OffsetSyncStoreTest)", () => {
  // Java: testOffsetTranslation (parameterized over initializationMustReadToEnd since 3.8)
  it.each([true, false])("translates exact offsets, +1 past a sync, -1 before it and resets on rewinds (flag %s)", (flag) => {
    const store = createOffsetSyncStore({ initializationMustReadToEnd: flag });
    store.markReadToEnd();
    // Emit synced downstream offset without dead-reckoning
    sync(store, tp, 100n, 200n);
    expect(translate(store, 150n)).toBe(201n);
    // Translate exact offsets
    sync(store, tp, 150n, 251n);
    expect(translate(store, 150n)).toBe(251n);
    // Use old offset (5) prior to any sync -> can't translate
    expect(translate(store, 5n)).toBe(-1n);
    // Downstream offsets reset
    sync(store, tp, 200n, 10n);
    expect(translate(store, 200n)).toBe(10n);
    // Upstream offsets reset
    sync(store, tp, 20n, 20n);
    expect(translate(store, 20n)).toBe(20n);
  });

  // Java: testNoTranslationIfStoreNotStarted
  it("declines every translation until the store has read to the end", () => {
    const store = createOffsetSyncStore({ initializationMustReadToEnd: true });
    for (const offset of [0n, 100n, 200n]) expect(translate(store, offset)).toBeNull();
    sync(store, tp, 100n, 200n); // read a sync during startup
    for (const offset of [0n, 100n, 200n]) expect(translate(store, offset)).toBeNull();
    expect(store.translateDownstream(null, tp, 100n)).toEqual({ kind: "empty", reason: "not-read-to-end" });
    store.markReadToEnd();
    expect(translate(store, 0n)).toBe(-1n);
    expect(translate(store, 100n)).toBe(200n);
    expect(translate(store, 200n)).toBe(201n);
  });

  // Java: testNoTranslationIfNoOffsetSync
  it("returns empty for a partition without any sync", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    expect(translate(store, 0n)).toBeNull();
    expect(store.translateDownstream(null, tp, 0n)).toEqual({ kind: "empty", reason: "no-sync" });
  });

  // Java: testPastOffsetTranslation (start-up wipes: initializationMustReadToEnd = true)
  it("keeps only the last start-up sync and spaces later syncs exponentially when start-up must read to end", () => {
    const store = createOffsetSyncStore({ initializationMustReadToEnd: true });
    let offset = 0n;
    for (; offset <= 1000n; offset += 10n) {
      sync(store, tp, offset, offset);
      assertSparseSyncInvariant(store, tp);
    }
    store.markReadToEnd();
    // After starting but before seeing new offsets, only the latest startup offset can be translated
    assertSparseSync(store, 1000n, -1n);
    for (; offset <= 10000n; offset += 10n) {
      sync(store, tp, offset, offset);
      assertSparseSyncInvariant(store, tp);
    }
    // Invariant D: the last sync from the initial read-to-end is still stored
    assertSparseSync(store, 1000n, -1n);
    const expected: [bigint, bigint][] = [
      [4840n, 1000n], [6760n, 4840n], [8680n, 6760n], [9160n, 8680n], [9640n, 9160n],
      [9880n, 9640n], [9940n, 9880n], [9970n, 9940n], [9990n, 9970n], [10000n, 9990n],
    ];
    for (const [syncOffset, previous] of expected) assertSparseSync(store, syncOffset, previous);
    expect(upstreams(store)).toEqual([10000, 9990, 9970, 9940, 9880, 9640, 9160, 8680, 6760, 4840, 1000]);
    // Rewinding upstream offsets should clear all historical syncs
    sync(store, tp, 1500n, 11000n);
    assertSparseSyncInvariant(store, tp);
    expect(translate(store, 1499n)).toBe(-1n);
    expect(translate(store, 1500n)).toBe(11000n);
    expect(translate(store, 2000n)).toBe(11001n);
    expect(upstreams(store)).toEqual([1500]);
  });

  // Java: testPastOffsetTranslationWithoutInitializationReadToEnd (3.7.1/3.8.0+). The pairs
  // (3840←0), (7680←3840), (8640←7680), (9120←8640) are quoted in PR #15910; the rest follow the algorithm.
  it("keeps start-up history when the task read its previous checkpoints", () => {
    const store = createOffsetSyncStore({ initializationMustReadToEnd: false });
    for (let offset = 0n; offset <= 1000n; offset += 10n) {
      sync(store, tp, offset, offset);
      assertSparseSyncInvariant(store, tp);
    }
    store.markReadToEnd();
    expect(upstreams(store)).toEqual([1000, 990, 960, 900, 840, 720, 480, 0]);
    expect(translate(store, 400n)).toBe(1n);
    expect(translate(store, 480n)).toBe(480n);
    expect(translate(store, 500n)).toBe(481n);
    expect(translate(store, 999n)).toBe(991n);
    for (let offset = 1000n; offset <= 10000n; offset += 10n) {
      sync(store, tp, offset, offset);
      assertSparseSyncInvariant(store, tp);
    }
    // 1000 was expired; offsets before 3840 translate relative to the first sync, 0.
    assertSparseSync(store, 3840n, 0n);
    assertSparseSync(store, 7680n, 3840n);
    assertSparseSync(store, 8640n, 7680n);
    assertSparseSync(store, 9120n, 8640n);
    expect(upstreams(store)).toEqual([10000, 9990, 9960, 9900, 9840, 9600, 9120, 8640, 7680, 3840, 0]);
    sync(store, tp, 1500n, 11000n);
    expect(translate(store, 1499n)).toBe(-1n);
    expect(translate(store, 1500n)).toBe(11000n);
    expect(translate(store, 2000n)).toBe(11001n);
  });

  // Java: testConsistentlySpacedSyncs
  it("expires at most one sync per update when syncs are consistently spaced", HEAVY, () => {
    const iterations = 100;
    const maxStep = ((1n << 63n) - 1n) / BigInt(iterations);
    for (let step = 1n; step < maxStep; step = step * 2n + 1n) {
      for (let firstOffset = 0n; firstOffset < 30n; firstOffset++) {
        assertSyncSpacingHasBoundedExpirations(firstOffset, Array<bigint>(iterations).fill(step), 1);
      }
    }
  });

  // Java: testRandomlySpacedSyncs (new Random(0L))
  it("expires at most n + 2 syncs per update when steps differ by at most n bits", HEAVY, () => {
    const random = new JavaRandom(0n);
    const iterationBits = 10;
    const iterations = 1 << iterationBits;
    for (let n = 1; n < 64 - iterationBits; n++) {
      const maximumDifference = 1n << BigInt(n);
      assertSyncSpacingHasBoundedExpirations(0n, random.longs(iterations, 0n, maximumDifference), n + 2);
      const offsetLagMax = 1n << 16n;
      assertSyncSpacingHasBoundedExpirations(0n, random.longs(iterations, offsetLagMax, offsetLagMax + maximumDifference), n + 2);
    }
  });

  // Java: testDroppedSyncsSpacing (new Random(0L))
  it("expires at most two syncs per update when every other sync may be dropped", HEAVY, () => {
    const random = new JavaRandom(0n);
    const steps = Array.from({ length: 10000 }, () => (random.nextDouble() < 0.5 ? 2n : 1n) * 100n);
    assertSyncSpacingHasBoundedExpirations(0n, steps, 2);
  });
});

describe("OffsetSyncStore beyond the Java tests", () => {
  it("keeps the syncs of different partitions apart", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    const other = { topic: "topic1", partition: 3 };
    sync(store, tp, 100n, 200n);
    sync(store, other, 5n, 7n);
    expect(translate(store, 100n)).toBe(200n);
    expect(store.translateDownstream(null, other, 5n)).toMatchObject({ kind: "translated", downstream: 7n });
    expect(store.listPartitions()).toEqual([tp, other]);
  });

  it("lists partitions in the order of their first sync and keeps each one's slots, the first one's included", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    const renamed = { topic: `${tp.topic}-b`, partition: 7 };
    const other = { topic: tp.topic, partition: tp.partition + 1 };
    sync(store, tp, 100n, 200n);
    expect(store.listPartitions()).toEqual([tp]);
    sync(store, renamed, 10n, 20n);
    sync(store, other, 50n, 60n);
    // The first partition keeps taking syncs after others joined; a rewind clears only its own slots.
    sync(store, tp, 150n, 251n);
    sync(store, renamed, 5n, 30n);
    expect(store.listPartitions()).toEqual([tp, renamed, other]);
    expect(store.listRetainedSyncs(tp)).toEqual([{ upstream: 150n, downstream: 251n }, { upstream: 100n, downstream: 200n }]);
    expect(store.getSlots(renamed)).toEqual(Array.from({ length: 64 }, () => ({ upstream: 5n, downstream: 30n })));
    expect(store.lookupLatestSync(other, 55n)).toEqual({ upstream: 50n, downstream: 60n });
    expect(translate(store, 160n)).toBe(252n);
    expect(store.getSlots({ topic: tp.topic, partition: 99 })).toBeNull();
  });

  it("rejects a malformed record without touching the store", () => {
    const store = createOffsetSyncStore();
    expect(() => store.handleRecord(Buffer.from("0006", "hex"), Buffer.alloc(16))).toThrow(MalformedRecordError);
    expect(store.listPartitions()).toEqual([]);
  });

  it("looks up the sync a translation uses, as translateDownstream does, without a Translation object", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    expect(store.lookupLatestSync(tp, 150n)).toBeNull();
    sync(store, tp, 100n, 200n);
    sync(store, tp, 150n, 251n);
    expect(store.lookupLatestSync(tp, 160n)).toEqual({ upstream: 150n, downstream: 251n });
    expect(store.lookupLatestSync(tp, 149n)).toEqual({ upstream: 100n, downstream: 200n });
    // Older than every slot: the oldest slot (upstream above the offset), which translateDownstream calls too old.
    expect(store.lookupLatestSync(tp, 5n)).toEqual({ upstream: 100n, downstream: 200n });
    expect(store.translateDownstream(null, tp, 5n)).toMatchObject({ kind: "too-old", oldest: { upstream: 100n } });
    expect(store.lookupLatestSync({ topic: "topic1", partition: 9 }, 150n)).toBeNull();
    // The lookup does not look at readToEnd: its caller checks it (translateDownstream declines before it).
    const loading = createOffsetSyncStore();
    sync(loading, tp, 100n, 200n);
    expect(loading.lookupLatestSync(tp, 150n)).toEqual({ upstream: 100n, downstream: 200n });
    expect(loading.translateDownstream(null, tp, 150n)).toEqual({ kind: "empty", reason: "not-read-to-end" });
  });

  it("looks up each partition's own syncs when lookups alternate between partitions", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    const other = { topic: tp.topic, partition: tp.partition + 1 };
    const renamed = { topic: `${tp.topic}-b`, partition: tp.partition };
    sync(store, tp, 100n, 200n);
    sync(store, other, 100n, 900n);
    sync(store, renamed, 100n, 500n);
    for (let round = 0; round < 2; round++) {
      expect(store.lookupLatestSync(tp, 150n)).toEqual({ upstream: 100n, downstream: 200n });
      expect(store.lookupLatestSync(other, 150n)).toEqual({ upstream: 100n, downstream: 900n });
      expect(store.lookupLatestSync(renamed, 150n)).toEqual({ upstream: 100n, downstream: 500n });
      expect(store.lookupLatestSync({ topic: tp.topic, partition: tp.partition + 2 }, 150n)).toBeNull();
    }
    // A sync added after a lookup is seen by the next one.
    sync(store, other, 140n, 950n);
    expect(store.lookupLatestSync(other, 150n)).toEqual({ upstream: 140n, downstream: 950n });
  });

  it("translates from a sync by the +1 rule, wrapping like a Java long", () => {
    expect(translateFromSync({ upstream: 150n, downstream: 251n }, 150n)).toBe(251n);
    expect(translateFromSync({ upstream: 150n, downstream: 251n }, 9_000n)).toBe(252n);
    expect(translateFromSync({ upstream: 0n, downstream: 9_223_372_036_854_775_807n }, 1n)).toBe(-9_223_372_036_854_775_808n);
  });

  it("does not change slot arrays returned earlier when a new sync arrives", () => {
    const store = createOffsetSyncStore();
    store.markReadToEnd();
    sync(store, tp, 0n, 0n);
    const before = store.getSlots(tp);
    sync(store, tp, 10n, 10n);
    expect(before?.[0]?.upstream).toBe(0n);
    expect(store.getSlots(tp)?.[0]?.upstream).toBe(10n);
  });

  it("derives the start-up flag from the Kafka version and whether checkpoints were read", () => {
    expect(resolveInitializationMustReadToEnd("3.6.2", true)).toBe(true);
    expect(resolveInitializationMustReadToEnd("3.7.0", true)).toBe(true);
    expect(resolveInitializationMustReadToEnd("3.7.1", true)).toBe(false);
    expect(resolveInitializationMustReadToEnd("3.8.0", false)).toBe(true);
    expect(resolveInitializationMustReadToEnd("4.1.0-SNAPSHOT", true)).toBe(false);
    expect(() => resolveInitializationMustReadToEnd("trunk", true)).toThrow(RangeError);
  });
});

describe("JavaRandom test helper", () => {
  it("reproduces the first outputs of java.util.Random(0)", () => {
    expect(new JavaRandom(0n).nextLong()).toBe(-4962768465676381896n);
    expect(new JavaRandom(0n).nextDouble()).toBe(0.730967787376657);
    expect(new JavaRandom(0n).nextBits(32)).toBe(-1155484576n);
  });
});
