/**
 * The offset syncs a collector publishes (served-read-model.ts: each partition's newest `servedOffsetSyncs`), copied
 * from its SyncHistoryStore as numbers: at 100,000 partitions they are a million syncs, which as point objects (two
 * bigints each) cost more to make and to split into columns again than the rest of the publication. The encoder takes
 * them as columns (columnar-source.ts) and writes what it writes for the Map of point arrays they stand for; anything
 * else reads them as SyncHistories.
 */
import type { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { SyncHistories, SyncHistory } from "@/lib/collector/sync-history";
import type { OffsetSyncPoint } from "@/lib/collector/types";
import {
  type ColumnarMap, type ColumnarSource, describeDistinctStrings, type DistinctStrings, encodeAsColumns,
} from "./columnar-source";

/**
 * A store's keys in its order (a key's place is its slot: the store numbers slots in the order keys() lists them),
 * their column and their lookup made when first needed: kept from one publication to the next while the store adds
 * no key (it never removes one), where they were listed, looked up and stringified again for 100,000 keys each time.
 */
interface StoreKeys {
  readonly list: readonly string[];
  slots: ReadonlyMap<string, number> | null;
  column: DistinctStrings | null;
}

const keptKeys = new WeakMap<SyncHistoryStore, StoreKeys>();

function readStoreKeys(store: SyncHistoryStore): StoreKeys {
  let keys = keptKeys.get(store);
  // Keys are only added: a list as long as the store's is the store's list.
  if (keys === undefined || keys.list.length !== store.size) {
    keys = { list: [...store.keys()], slots: null, column: null };
    keptKeys.set(store, keys);
  }
  return keys;
}

/** Each key's newest syncs of a store, as they were when copied; keys in the store's order. */
export class ServedSyncHistories implements SyncHistories, ColumnarSource {
  private readonly keyList: StoreKeys;
  /** Per key: how many syncs it has, and where its first is in `upstreams` / `downstreams`. */
  private readonly lengths: Uint32Array;
  private readonly firsts: Uint32Array;
  private readonly upstreams: Float64Array;
  private readonly downstreams: Float64Array;

  /** Copies the newest `newest` syncs of each key of `store`; `onTrimmed` hears of each key that holds more. */
  constructor(store: SyncHistoryStore, newest: number, onTrimmed: (key: string, held: number) => void) {
    this.keyList = readStoreKeys(store);
    const keys = this.keyList.list;
    const count = keys.length;
    const held = store.lengths;
    let total = 0;
    for (let slot = 0; slot < count; slot++) total += Math.min(newest, held[slot]!);
    this.lengths = new Uint32Array(count);
    this.firsts = new Uint32Array(count);
    this.upstreams = new Float64Array(total);
    this.downstreams = new Float64Array(total);
    let at = 0;
    for (let slot = 0; slot < count; slot++) {
      const length = held[slot]!;
      const from = Math.max(0, length - newest);
      if (length > newest) onTrimmed(keys[slot]!, length);
      this.firsts[slot] = at;
      this.lengths[slot] = length - from;
      // Straight from the store's pool (a pair's upstream, then its downstream), not through a history object a sync.
      for (let i = from; i < length; i++, at++) {
        const pair = store.pairAt(slot, i);
        this.upstreams[at] = store.valueAt(2 * pair);
        this.downstreams[at] = store.valueAt(2 * pair + 1);
      }
    }
  }

  get(key: string): SyncHistory | undefined {
    const slot = this.readSlots().get(key);
    return slot === undefined ? undefined : this.readSlot(slot);
  }

  has(key: string): boolean {
    return this.readSlots().has(key);
  }

  keys(): IterableIterator<string> {
    return this.keyList.list.values();
  }

  *entries(): Generator<[string, SyncHistory]> {
    const keys = this.keyList.list;
    for (let slot = 0; slot < keys.length; slot++) yield [keys[slot]!, this.readSlot(slot)];
  }

  list(key: string): readonly OffsetSyncPoint[] {
    return this.get(key)?.list() ?? [];
  }

  /** The Map of point arrays these syncs stand for, as columns: keys, lengths, upstreams and downstreams. */
  [encodeAsColumns](): ColumnarMap {
    const points = {
      kind: "objects",
      length: this.upstreams.length,
      // The order of a point's properties as the store makes it (StoredHistory.point).
      keys: ["upstream", "downstream"],
      columns: [{ kind: "int64", values: this.upstreams }, { kind: "int64", values: this.downstreams }],
    } as const;
    const values = { kind: "arrays", lengths: this.lengths, items: points } as const;
    return { kind: "map", keys: (this.keyList.column ??= describeDistinctStrings(this.keyList.list)), values };
  }

  private readSlots(): ReadonlyMap<string, number> {
    return (this.keyList.slots ??= new Map(this.keyList.list.map((key, slot) => [key, slot])));
  }

  private readSlot(slot: number): SyncHistory {
    const first = this.firsts[slot]!;
    const length = this.lengths[slot]!;
    const upstreams = this.upstreams;
    const downstreams = this.downstreams;
    const point = (i: number): OffsetSyncPoint => ({
      upstream: BigInt(upstreams[first + i]!),
      downstream: BigInt(downstreams[first + i]!),
    });
    return {
      length,
      // A history of its own, as a new array of points was.
      dropped: 0,
      upstream: (i) => upstreams[first + i]!,
      downstream: (i) => downstreams[first + i]!,
      point,
      list: (from = 0) => Array.from({ length: Math.max(0, length - from) }, (_, i) => point(from + i)),
    };
  }
}
