/**
 * MM2's OffsetSyncStore (lib/mm2/offset-sync-store.ts, mirroring apache/kafka connect/mirror/.../OffsetSyncStore.java)
 * for every partition of one flow, as numbers: no object per partition or per sync. A partition's 64 slots are held
 * as runs, newest first: each run is one distinct sync (its upstream and downstream offsets) and the last slot it
 * fills. Repair keeps the slots ordered by age (a slot never holds a newer sync than the slot before it), so the same
 * sync always fills adjacent slots and the runs are exactly the distinct slots. The runs of all partitions live in
 * one arena of typed arrays; a partition that needs more runs than its block holds moves to a bigger block at the
 * arena's end, and the arena is packed again when half of it is holes.
 *
 * Java compares slots by reference (each record read is a distinct object, even with the same offsets): here a slot
 * is identified by its run, and the sync being added by −1, so two syncs with equal offsets stay distinct.
 *
 * Offsets are float64, exact below 2^53 (docs/translation-columns.md). Java's invariant arithmetic
 * (`jUpstream + (1L << j) - (1L << i)`, wrapping as a long) is computed exactly for every offset in (−2^53, 2^53): on
 * numbers when both offsets are at or above 0, with bigints otherwise. A sync at or beyond ±2^53 is held rounded: the
 * partition's translation fails while a slot holds it (`findUnsafeRun`), as the bigint model's did.
 */
import { SYNCS_PER_PARTITION } from "@/lib/mm2";
import { growArray, growCapacity } from "@/lib/collector/grown-array";

const slotCount = SYNCS_PER_PARTITION;
const lastSlot = slotCount - 1;

/** 2^k as a number, exact for every k below 64. */
const powers: readonly number[] = Array.from({ length: slotCount }, (_, k) => 2 ** k);
/** Java `1L << k` as a long (1L << 63 is Long.MIN_VALUE), for the bigint path. */
const longPowers: readonly bigint[] = Array.from({ length: slotCount }, (_, k) => BigInt.asIntN(64, 1n << BigInt(k)));

/** Scratch of one repair (module-wide: a repair never runs inside another). */
const originalRun = new Int32Array(slotCount);
const slotRun = new Int32Array(slotCount);
const originalUp = new Float64Array(slotCount);
const originalDown = new Float64Array(slotCount);

/** The numeric OffsetSyncStore of one flow's partitions, by dense partition index (flow-partition-index.ts). */
export class SyncSlots {
  /** Per partition: where its block starts in the arena, the runs it holds (0: no sync) and has room for. */
  private first = new Int32Array(0);
  private count = new Uint8Array(0);
  private room = new Uint8Array(0);
  /** The arena: per run, the sync's offsets and the last slot the run fills. */
  private up = new Float64Array(0);
  private down = new Float64Array(0);
  private last = new Uint8Array(0);
  private top = 0;
  private holes = 0;
  /** The sync being added while a repair runs (run id −1). */
  private addedUp = 0;
  private addedDown = 0;

  /** Forgets partition `p`'s syncs (its model is replayed from its history again). */
  clear(p: number): void {
    this.reserve(p);
    this.count[p] = 0;
  }

  /**
   * Adds the next sync of partition `p` (Java handleRecord after deserializing). `wipe`: Java's
   * `!readToEnd && initializationMustReadToEnd` (a sync read during a wiping start-up replaces every slot).
   */
  add(p: number, upstream: number, downstream: number, wipe: boolean): void {
    this.reserve(p);
    const runs = this.count[p]!;
    // Java createInitialSyncs / clearSyncArray: every slot the new sync; a rewind upstream also clears (KAFKA-15905).
    if (runs === 0 || wipe || upstream < this.up[this.first[p]!]!) {
      this.place(p, 1);
      const at = this.first[p]!;
      this.up[at] = upstream;
      this.down[at] = downstream;
      this.last[at] = lastSlot;
      return;
    }
    this.expand(p);
    this.addedUp = upstream;
    this.addedDown = downstream;
    this.repair();
    this.compress(p);
  }

  /** Runs partition `p` holds (distinct slots), newest first; 0 without a sync. */
  countRuns(p: number): number {
    return p < this.count.length ? this.count[p]! : 0;
  }

  /** The arena position of partition `p`'s run `k` (0: newest; countRuns − 1: the oldest, slot 63). */
  runAt(p: number, k: number): number {
    return this.first[p]! + k;
  }

  /**
   * Java lookupLatestSync: the arena position of the first run at or before `offset`, else of the oldest run (too
   * old when its upstream is above `offset`); −1 without a sync.
   */
  findRun(p: number, offset: number): number {
    const runs = this.countRuns(p);
    if (runs === 0) return -1;
    const start = this.first[p]!;
    const end = start + runs - 1;
    let k = start;
    while (k < end && this.up[k]! > offset) k++;
    return k;
  }

  /** The upstream offset of the run at arena position `at`. */
  upstreamAt(at: number): number {
    return this.up[at]!;
  }

  /** The downstream offset of the run at arena position `at`. */
  downstreamAt(at: number): number {
    return this.down[at]!;
  }

  /** The last slot (0–63) the run at arena position `at` fills (with runAt: the 64 slots, as getSlots gives them). */
  lastSlotAt(at: number): number {
    return this.last[at]!;
  }

  /**
   * The arena position of partition `p`'s first run holding an offset beyond ±(2^53 − 1) (upstream offsets first, in
   * slot order, then downstream: the order the bigint model's numbers were checked in), with which one; null when
   * every offset is exact.
   */
  findUnsafeRun(p: number): { at: number; what: "upstream" | "downstream" } | null {
    const start = this.first[p]!;
    const end = start + this.countRuns(p);
    for (let k = start; k < end; k++) if (!isExact(this.up[k]!)) return { at: k, what: "upstream" };
    for (let k = start; k < end; k++) if (!isExact(this.down[k]!)) return { at: k, what: "downstream" };
    return null;
  }

  /** The original slots (runs) into the scratch, as run ids per slot; the working slots start as a copy. */
  private expand(p: number): void {
    const start = this.first[p]!;
    const runs = this.count[p]!;
    let slot = 0;
    for (let k = 0; k < runs; k++) {
      originalUp[k] = this.up[start + k]!;
      originalDown[k] = this.down[start + k]!;
      const end = this.last[start + k]!;
      for (; slot <= end; slot++) {
        originalRun[slot] = k;
        slotRun[slot] = k;
      }
    }
  }

  private upOf(run: number): number {
    return run < 0 ? this.addedUp : originalUp[run]!;
  }

  /** Java invariantB(iSync, jSync, i, j): is the sync of run `iRun` recent enough to sit before that of `jRun`? */
  private holdsB(iRun: number, jRun: number, i: number, j: number): boolean {
    if (iRun === jRun) return true;
    const iUp = this.upOf(iRun);
    const jUp = this.upOf(jRun);
    // Both at or above 0 and below 2^53: the difference is exact, and 2^j − 2^i is exact up to j = 53; beyond it the
    // bound is at least 2^53, above any difference (and past 2^63 Java's bound wraps negative: true as well).
    if (iUp >= 0 && jUp >= 0 && isExact(iUp) && isExact(jUp)) return iUp - jUp <= powers[j]! - powers[i]!;
    const bound = BigInt.asIntN(64, BigInt(jUp) + longPowers[j]! - longPowers[i]!);
    return bound < 0n || BigInt(iUp) <= bound;
  }

  /** Java invariantC(iSync, jSync, i): is the sync of run `iRun` far enough ahead of that of `jRun`? */
  private holdsC(iRun: number, jRun: number, i: number): boolean {
    if (iRun === jRun) return true;
    const iUp = this.upOf(iRun);
    const jUp = this.upOf(jRun);
    const k = Math.max(i - 2, 0);
    // jUpstream + 2^k stays below 2^63 here (k ≤ 61): Java's bound is never negative for offsets at or above 0.
    if (iUp >= 0 && jUp >= 0 && isExact(iUp) && isExact(jUp)) return iUp - jUp >= powers[k]!;
    const bound = BigInt.asIntN(64, BigInt(jUp) + longPowers[k]!);
    return bound >= 0n && BigInt(iUp) >= bound;
  }

  /**
   * Java updateSyncArray after its clear check (OffsetSyncStore.java, KAFKA-15202), on run ids: repair invariant A at
   * slot 0, then walk the slots, promoting older values from the original where they still satisfy B and C, until B
   * holds again.
   */
  private repair(): void {
    let replacement = -1;
    let replacementIndex = 0;
    slotRun[0] = replacement;
    for (let current = 1; current < slotCount; current++) {
      const previous = current - 1;
      let skipOldValue: boolean;
      do {
        const oldValue = originalRun[replacementIndex]!;
        const isRecent = this.holdsB(slotRun[previous]!, oldValue, previous, current);
        const separatedFromPrevious = this.holdsC(slotRun[previous]!, oldValue, previous);
        const next = current + 1;
        const separatedFromNext = next >= slotCount || this.holdsC(oldValue, slotRun[next]!, current);
        const nextReplacement = replacementIndex + 1;
        const duplicate = nextReplacement < slotCount && oldValue === originalRun[nextReplacement];
        const promote = isRecent && separatedFromPrevious && separatedFromNext;
        if (promote) replacement = oldValue;
        skipOldValue = duplicate || !separatedFromPrevious;
        if (promote || skipOldValue) replacementIndex++;
      } while (replacementIndex < current && skipOldValue);
      if (this.holdsB(slotRun[previous]!, slotRun[current]!, previous, current)) break;
      slotRun[current] = replacement;
    }
  }

  /** The working slots back into partition `p`'s runs. */
  private compress(p: number): void {
    let runs = 1;
    for (let slot = 1; slot < slotCount; slot++) if (slotRun[slot] !== slotRun[slot - 1]) runs++;
    this.place(p, runs);
    let at = this.first[p]!;
    for (let slot = 0; slot < slotCount; slot++) {
      const run = slotRun[slot]!;
      if (slot < lastSlot && slotRun[slot + 1] === run) continue;
      this.up[at] = run < 0 ? this.addedUp : originalUp[run]!;
      this.down[at] = run < 0 ? this.addedDown : originalDown[run]!;
      this.last[at] = slot;
      at++;
    }
  }

  /** Gives partition `p` a block of at least `runs` runs (its runs are rewritten by the caller) and sets its count. */
  private place(p: number, runs: number): void {
    if (runs > this.room[p]!) {
      // One run to spare: a partition's distinct slots change by one or two at a time (5 ± 1 in the synthetic world).
      const room = Math.min(slotCount, runs + 1);
      this.holes += this.room[p]!;
      this.room[p] = 0;
      this.count[p] = 0;
      if (this.top + room > this.up.length) {
        if (this.holes > this.top / 8) this.pack(room);
        else this.resize(Math.max(this.top + room, Math.ceil(this.up.length * 1.25), 1024));
      }
      this.first[p] = this.top;
      this.room[p] = room;
      this.top += room;
    }
    this.count[p] = runs;
  }

  /**
   * Moves every block to the start of a new arena, in partition order, without the holes between them, with room for
   * `extra` more runs and an eighth to grow into.
   */
  private pack(extra: number): void {
    const length = Math.max(Math.ceil((this.top - this.holes + extra) * 1.125), 1024);
    const up = new Float64Array(length);
    const down = new Float64Array(length);
    const last = new Uint8Array(length);
    let top = 0;
    for (let p = 0; p < this.room.length; p++) {
      const room = this.room[p]!;
      if (room === 0) continue;
      const from = this.first[p]!;
      const runs = this.count[p]!;
      // A loop, not subarray().set(): three views per partition were 900,000 objects a pack at 300,000 partitions.
      for (let k = 0; k < runs; k++) {
        up[top + k] = this.up[from + k]!;
        down[top + k] = this.down[from + k]!;
        last[top + k] = this.last[from + k]!;
      }
      this.first[p] = top;
      top += room;
    }
    this.up = up;
    this.down = down;
    this.last = last;
    this.top = top;
    this.holes = 0;
  }

  private resize(length: number): void {
    const up = new Float64Array(length);
    up.set(this.up.subarray(0, this.top));
    const down = new Float64Array(length);
    down.set(this.down.subarray(0, this.top));
    const last = new Uint8Array(length);
    last.set(this.last.subarray(0, this.top));
    this.up = up;
    this.down = down;
    this.last = last;
  }

  /** Room for partition `p` in the per-partition arrays (grown by doubling). */
  private reserve(p: number): void {
    if (p < this.count.length) return;
    const size = growCapacity(p, this.count.length);
    this.first = growArray(this.first, size);
    this.count = growArray(this.count, size);
    this.room = growArray(this.room, size);
  }
}

/** Whether `value` is an integer float64 holds exactly with its neighbours (|value| ≤ 2^53 − 1). */
function isExact(value: number): boolean {
  return value <= Number.MAX_SAFE_INTEGER && value >= -Number.MAX_SAFE_INTEGER;
}
