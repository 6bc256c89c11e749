import { describe, expect, it } from "vitest";
import { OffsetBeyondExactError } from "@/lib/collector/flow-columns";
import { listSyncHistories, readPointHistory, readSyncHistories } from "@/lib/collector/sync-history";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { OffsetSyncPoint } from "@/lib/collector/types";

const points = (...pairs: [number, number][]): OffsetSyncPoint[] => pairs.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
const numbersOf = (store: SyncHistoryStore, key: string) => {
  const h = store.get(key)!;
  return Array.from({ length: h.length }, (_, i) => [h.upstream(i), h.downstream(i)]);
};

describe("SyncHistoryStore", () => {
  it("appends in place, oldest first, and lists the points as bigints", () => {
    const store = new SyncHistoryStore(100);
    store.append("f|t|0", points([0, 0], [100, 105]));
    const held = store.get("f|t|0")!;
    store.append("f|t|0", points([200, 210]));
    expect(store.get("f|t|0")).toBe(held);
    expect(numbersOf(store, "f|t|0")).toEqual([[0, 0], [100, 105], [200, 210]]);
    expect(store.list("f|t|0")).toEqual(points([0, 0], [100, 105], [200, 210]));
    expect(held.list(1)).toEqual(points([100, 105], [200, 210]));
    expect([held.length, held.dropped]).toEqual([3, 0]);
    expect(store.list("f|t|1")).toEqual([]);
    expect([store.has("f|t|0"), store.has("f|t|1"), store.size]).toEqual([true, false, 1]);
  });

  it("keeps the newest `bound` syncs, counting those dropped at the front, as the splice of the arrays did", () => {
    const store = new SyncHistoryStore(5);
    const all: [number, number][] = [];
    for (let i = 0; i < 12; i++) {
      all.push([i * 10, i * 10 + 1]);
      store.append("k", points([i * 10, i * 10 + 1]));
      const expected = all.slice(-5);
      expect(numbersOf(store, "k")).toEqual(expected);
      expect(store.get("k")!.dropped).toBe(all.length - expected.length);
    }
    store.append("k", points([500, 501], [600, 601], [700, 701]));
    expect(numbersOf(store, "k")).toEqual([[100, 101], [110, 111], [500, 501], [600, 601], [700, 701]]);
    expect(store.get("k")!.dropped).toBe(10);
  });

  it("makes the newest point once per append (the same object until the next sync)", () => {
    const store = new SyncHistoryStore(10);
    store.append("k", points([1, 1], [2, 2]));
    const h = store.get("k")!;
    const newest = h.point(1);
    expect(h.point(1)).toBe(newest);
    expect(h.point(0)).not.toBe(h.point(0));
    store.append("k", points([3, 3]));
    expect(h.point(1)).not.toBe(newest);
    expect(h.point(2)).toEqual({ upstream: 3n, downstream: 3n });
  });

  it("keeps each partition's syncs apart while rings grow, move and the pool is compacted", () => {
    const store = new SyncHistoryStore(300);
    const expected = new Map<string, [number, number][]>();
    for (let cycle = 0; cycle < 400; cycle++) {
      for (let p = 0; p < 40; p++) {
        // Partition p takes a sync every (p % 7 + 1) cycles: rings fill at different rates.
        if (cycle % ((p % 7) + 1) !== 0) continue;
        const key = `f|t|${p}`;
        const sync: [number, number] = [cycle * 1000 + p, cycle * 1000 + p + 7];
        store.append(key, points(sync));
        const list = expected.get(key) ?? [];
        list.push(sync);
        expected.set(key, list.slice(-300));
      }
    }
    for (const [key, list] of expected) expect(numbersOf(store, key), key).toEqual(list);
  });

  it("continues a partition that took no sync for a while (it left the flow and came back) where it stopped", () => {
    const store = new SyncHistoryStore(8);
    store.append("f|t|0", points([0, 0], [10, 10]));
    for (let p = 1; p <= 50; p++) store.append(`f|t|${p}`, points([p, p], [p + 1, p + 1], [p + 2, p + 2], [p + 3, p + 3], [p + 4, p + 4]));
    const h = store.get("f|t|0")!;
    store.append("f|t|0", points([20, 20]));
    expect(store.get("f|t|0")).toBe(h);
    expect(numbersOf(store, "f|t|0")).toEqual([[0, 0], [10, 10], [20, 20]]);
    expect(numbersOf(store, "f|t|50")).toEqual([[50, 50], [51, 51], [52, 52], [53, 53], [54, 54]]);
  });

  it("refuses an offset beyond 2^53 where it enters, naming the partition, and appends none of the batch", () => {
    const store = new SyncHistoryStore(10);
    store.append("f|t|0", points([1, 1]));
    const beyond = { upstream: 2n ** 53n, downstream: 5n };
    expect(() => store.append("f|t|0", [{ upstream: 2n, downstream: 2n }, beyond])).toThrow(OffsetBeyondExactError);
    expect(() => store.append("f|t|0", [beyond])).toThrow(/f\|t\|0: offset sync upstream 9007199254740992 is beyond 2\^53/);
    expect(() => store.append("f|t|1", [{ upstream: 0n, downstream: -(2n ** 60n) }])).toThrow(/downstream -1152921504606846976/);
    expect(numbersOf(store, "f|t|0")).toEqual([[1, 1]]);
    store.append("f|t|0", [{ upstream: 2n ** 53n - 1n, downstream: 2n ** 53n - 1n }]);
    expect(store.list("f|t|0").at(-1)).toEqual({ upstream: 2n ** 53n - 1n, downstream: 2n ** 53n - 1n });
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => new SyncHistoryStore(0)).toThrow(/positive integer, not 0/);
  });
});

describe("readSyncHistories over a Map of points", () => {
  it("reads the same arrays, one reader per array, and follows a trim at the front in `dropped`", () => {
    const list = points([0, 0], [10, 10], [20, 20]);
    const map = new Map([["k", list]]);
    const histories = readSyncHistories(map);
    const h = histories.get("k")!;
    expect(readSyncHistories(new Map(map)).get("k")).toBe(h);
    expect([h.length, h.dropped, h.upstream(2), h.point(1)]).toEqual([3, 0, 20, list[1]]);
    list.push(...points([30, 30]));
    list.splice(0, 2);
    expect([h.length, h.dropped]).toEqual([2, 2]);
    expect(histories.list("k")).toBe(list);
    expect(readPointHistory(list)).toBe(h);
    expect([...listSyncHistories(map)]).toEqual([["k", list]]);
  });

  it("lists a store's keys and points", () => {
    const store = new SyncHistoryStore(4);
    store.append("a", points([1, 2]));
    store.append("b", []);
    expect([...listSyncHistories(store)]).toEqual([["a", points([1, 2])], ["b", []]]);
    expect(readSyncHistories(store)).toBe(store);
  });
});
