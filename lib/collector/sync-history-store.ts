/**
 * The collector's offset-sync histories as numbers: every partition's syncs in one Float64Array pool (upstream,
 * downstream pairs), each partition a ring of up to `bound` pairs at its own place in the pool, appended in place.
 * A ring grows by doubling (moved to the pool's end; the pool is compacted when half of it is left behind) and, once
 * at the bound, overwrites its oldest sync: what the arrays of points did with a splice at the front, in 16 bytes a
 * sync instead of an object and two bigints. Offsets are checked once, where they enter, against 2^53. Each slot
 * counts the syncs ever appended to it, so a reader can tell a history that did not grow without reading its ring
 * (the detectors' offset-sync markers: a cycle's steady partitions cost no read of the scattered pool).
 */
import { OffsetBeyondExactError } from "./flow-columns";
import { growArray, growCapacity } from "./grown-array";
import type { SyncHistories, SyncHistory } from "./sync-history";
import type { OffsetSyncPoint } from "./types";

const maxExact = BigInt(Number.MAX_SAFE_INTEGER);
/** A new partition's first ring holds at least this many syncs. */
const firstCapacity = 4;
/**
 * A full ring below the bound grows by a quarter (a partition takes a sync every offset.lag.max records: rings grow
 * seldom, and a quarter leaves less room unused than a doubling); the pool by a quarter too, and is compacted once
 * the places left by moved rings pass a quarter of it.
 */
const ringGrowth = 1.25;
const poolGrowth = 1.25;
const wasteKept = 0.25;

/** Every partition's bounded offset-sync history, by `flowPartitionKey`. */
export class SyncHistoryStore implements SyncHistories {
  private pool = new Float64Array(0);
  /** Pairs in use at the pool's front, and how many of them belong to no ring (left by a ring that grew). */
  private poolUsed = 0;
  private poolWasted = 0;
  private readonly slots = new Map<string, number>();
  private readonly views: StoredHistory[] = [];
  /** Per slot: its ring's first pair in the pool, capacity, oldest sync's place in it, length, syncs trimmed. */
  starts = new Float64Array(0);
  capacities = new Int32Array(0);
  heads = new Int32Array(0);
  lengths = new Int32Array(0);
  droppedCounts = new Float64Array(0);
  /**
   * Per slot: syncs ever appended (only grows). A reader that noted it tells whether a history grew since, without
   * reading its ring; slots are numbered in the order keys() lists the keys.
   */
  appendedCounts = new Float64Array(0);

  /** `bound`: the syncs kept per partition (the oldest go first). */
  constructor(readonly bound: number) {
    if (!Number.isInteger(bound) || bound < 1) throw new RangeError(`a sync history's bound must be a positive integer, not ${bound}`);
  }

  /** How many partitions have a history. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * The key's history. A key keeps its slot and its history object for the store's life (nothing is removed), so a
   * reader may hold the object between cycles instead of looking the key up again (keepsHistories).
   */
  get(key: string): SyncHistory | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.views[slot];
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  keys(): IterableIterator<string> {
    return this.slots.keys();
  }

  *entries(): Generator<[string, SyncHistory]> {
    for (const [key, slot] of this.slots) yield [key, this.views[slot]!];
  }

  list(key: string): readonly OffsetSyncPoint[] {
    return this.get(key)?.list() ?? [];
  }

  /**
   * Appends `syncs` to the key's history (made when missing), dropping the oldest past the bound. Throws an
   * OffsetBeyondExactError naming the key, before appending any, when an offset is beyond ±2^53.
   */
  append(key: string, syncs: readonly OffsetSyncPoint[]): void {
    for (const s of syncs) {
      checkExact(key, "upstream", s.upstream);
      checkExact(key, "downstream", s.downstream);
    }
    const slot = this.slots.get(key) ?? this.createSlot(key);
    const needed = Math.min(this.bound, this.lengths[slot]! + syncs.length);
    const capacity = this.capacities[slot]!;
    if (needed > capacity) this.growRing(slot, Math.min(this.bound, Math.max(firstCapacity, Math.ceil(capacity * ringGrowth), needed)));
    for (const s of syncs) this.appendPair(slot, Number(s.upstream), Number(s.downstream));
    this.appendedCounts[slot]! += syncs.length;
    this.views[slot]!.forgetNewest();
  }

  /** Pool index of the pair at `i` of `slot`'s ring (0 = oldest). */
  pairAt(slot: number, i: number): number {
    // A subtraction, not a remainder (an integer division): read several times for every translated row.
    const at = this.heads[slot]! + i;
    const capacity = this.capacities[slot]!;
    return this.starts[slot]! + (at >= capacity ? at - capacity : at);
  }

  /** The pool's value at `index` (a pair's upstream at 2·pair, downstream at 2·pair + 1). */
  valueAt(index: number): number {
    return this.pool[index]!;
  }

  private createSlot(key: string): number {
    const slot = this.views.length;
    if (slot >= this.lengths.length) {
      const size = growCapacity(slot, this.lengths.length);
      this.starts = growArray(this.starts, size);
      this.capacities = growArray(this.capacities, size);
      this.heads = growArray(this.heads, size);
      this.lengths = growArray(this.lengths, size);
      this.droppedCounts = growArray(this.droppedCounts, size);
      this.appendedCounts = growArray(this.appendedCounts, size);
    }
    this.slots.set(key, slot);
    this.views.push(new StoredHistory(this, slot));
    return slot;
  }

  /** Appends one sync to a ring that has room for it, or is at the bound (the oldest goes). */
  private appendPair(slot: number, upstream: number, downstream: number): void {
    const length = this.lengths[slot]!;
    let pair: number;
    if (length < this.capacities[slot]!) {
      pair = this.pairAt(slot, length);
      this.lengths[slot] = length + 1;
    } else {
      // Full at the bound: the oldest sync's place takes the new one.
      pair = this.pairAt(slot, 0);
      this.heads[slot] = (this.heads[slot]! + 1) % this.capacities[slot]!;
      this.droppedCounts[slot]! += 1;
    }
    this.pool[2 * pair] = upstream;
    this.pool[2 * pair + 1] = downstream;
  }

  /** Moves `slot`'s ring, oldest first, to a place of `capacity` pairs at the pool's end. */
  private growRing(slot: number, capacity: number): void {
    if (this.poolWasted > this.poolUsed * wasteKept && this.poolWasted > 1024) this.compact();
    const start = this.reservePairs(capacity);
    const length = this.lengths[slot]!;
    for (let i = 0; i < length; i++) {
      const from = this.pairAt(slot, i);
      this.pool[2 * (start + i)] = this.pool[2 * from]!;
      this.pool[2 * (start + i) + 1] = this.pool[2 * from + 1]!;
    }
    this.poolWasted += this.capacities[slot]!;
    this.starts[slot] = start;
    this.capacities[slot] = capacity;
    this.heads[slot] = 0;
  }

  /** The first of `pairs` new pairs at the pool's end (the pool doubled when they do not fit). */
  private reservePairs(pairs: number): number {
    const start = this.poolUsed;
    if (2 * (start + pairs) > this.pool.length) {
      const grown = new Float64Array(2 * Math.max(start + pairs, Math.ceil((this.pool.length / 2) * poolGrowth), 1024));
      grown.set(this.pool.subarray(0, 2 * start));
      this.pool = grown;
    }
    this.poolUsed += pairs;
    return start;
  }

  /** Copies every ring, oldest first, into a pool of its own size: the places left by grown rings are freed. */
  private compact(): void {
    const old = this.pool;
    const used = this.poolUsed - this.poolWasted;
    const pool = new Float64Array(2 * Math.max(Math.ceil(used * poolGrowth), 1024));
    let at = 0;
    for (let slot = 0; slot < this.views.length; slot++) {
      const capacity = this.capacities[slot]!;
      const length = this.lengths[slot]!;
      for (let i = 0; i < length; i++) {
        const from = this.pairAt(slot, i);
        pool[2 * (at + i)] = old[2 * from]!;
        pool[2 * (at + i) + 1] = old[2 * from + 1]!;
      }
      this.starts[slot] = at;
      this.heads[slot] = 0;
      at += capacity;
    }
    this.pool = pool;
    this.poolUsed = at;
    this.poolWasted = 0;
  }
}

/**
 * Whether `source` keeps each key's history object for its life (a SyncHistoryStore): a history found once may be read
 * again in later cycles without a lookup by key. A Map of point arrays (a recording, a decoded read model) does not.
 */
export function keepsHistories(source: SyncHistories): boolean {
  return source instanceof SyncHistoryStore;
}

/** One partition's history in the store: reads its ring; its newest point is made once per append. */
class StoredHistory implements SyncHistory {
  private newest: OffsetSyncPoint | null = null;

  constructor(
    private readonly store: SyncHistoryStore,
    private readonly slot: number,
  ) {}

  get length(): number {
    return this.store.lengths[this.slot]!;
  }

  get dropped(): number {
    return this.store.droppedCounts[this.slot]!;
  }

  upstream(i: number): number {
    return this.store.valueAt(2 * this.store.pairAt(this.slot, i));
  }

  downstream(i: number): number {
    return this.store.valueAt(2 * this.store.pairAt(this.slot, i) + 1);
  }

  point(i: number): OffsetSyncPoint {
    const last = i === this.length - 1;
    if (last && this.newest !== null) return this.newest;
    const made = { upstream: BigInt(this.upstream(i)), downstream: BigInt(this.downstream(i)) };
    if (last) this.newest = made;
    return made;
  }

  list(from = 0): readonly OffsetSyncPoint[] {
    const points: OffsetSyncPoint[] = [];
    for (let i = from; i < this.length; i++) points.push(this.point(i));
    return points;
  }

  /** Called on append: the newest point is another one now. */
  forgetNewest(): void {
    this.newest = null;
  }
}

function checkExact(key: string, what: string, value: bigint): void {
  if (value > maxExact || value < -maxExact) {
    throw new OffsetBeyondExactError(`${key}: offset sync ${what} ${value} is beyond 2^53, where offsets stop being exact as numbers`);
  }
}
