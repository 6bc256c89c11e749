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
import { type ColumnarMap, type ColumnarSource, encodeAsColumns } from "./columnar-source";

/** Each key's newest syncs of a store, as they were when copied; keys in the store's order. */
export class ServedSyncHistories implements SyncHistories, ColumnarSource {
  private readonly slots = new Map<string, number>();
  private readonly keyList: string[] = [];
  /** Per key: how many syncs it has, and where its first is in `upstreams` / `downstreams`. */
  private readonly lengths: Uint32Array;
  private readonly firsts: Uint32Array;
  private readonly upstreams: Float64Array;
  private readonly downstreams: Float64Array;

  /** Copies the newest `newest` syncs of each key of `store`; `onTrimmed` hears of each key that holds more. */
  constructor(store: SyncHistoryStore, newest: number, onTrimmed: (key: string, held: number) => void) {
    const histories: SyncHistory[] = [];
    let total = 0;
    for (const [key, history] of store.entries()) {
      this.slots.set(key, histories.length);
      this.keyList.push(key);
      histories.push(history);
      total += Math.min(newest, history.length);
      if (history.length > newest) onTrimmed(key, history.length);
    }
    this.lengths = new Uint32Array(histories.length);
    this.firsts = new Uint32Array(histories.length);
    this.upstreams = new Float64Array(total);
    this.downstreams = new Float64Array(total);
    let at = 0;
    histories.forEach((history, slot) => {
      const from = Math.max(0, history.length - newest);
      this.firsts[slot] = at;
      this.lengths[slot] = history.length - from;
      for (let i = from; i < history.length; i++, at++) {
        this.upstreams[at] = history.upstream(i);
        this.downstreams[at] = history.downstream(i);
      }
    });
  }

  get(key: string): SyncHistory | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.readSlot(slot);
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  keys(): IterableIterator<string> {
    return this.slots.keys();
  }

  *entries(): Generator<[string, SyncHistory]> {
    for (const [key, slot] of this.slots) yield [key, this.readSlot(slot)];
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
    return { kind: "map", keys: { kind: "values", values: this.keyList }, values };
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
