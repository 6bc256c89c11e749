import { describe, expect, it } from "vitest";
import { decodeNewestPoint, decodePack, encodeCycles, encodePack, findCycleEntry } from "@/lib/store/sample-pack";

const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe("sample packs", () => {
  it("round-trips points exactly, nulls and the int64 extremes included, and decodes the newest alone", () => {
    const points = [
      { at: T0, values: [0n, MAX, null, MIN, -5n] },
      { at: T0 + 10_000, values: [null, MIN, 7n, MAX, 0n] },
      { at: T0 + 20_001, values: [3n, 9_007_199_254_740_993n, 8n, null, -1n] },
    ];
    const pack = encodePack(points);
    expect(decodePack(pack, 5)).toEqual(points);
    expect(decodeNewestPoint(pack, 5)).toEqual(points[2]);
    expect(decodePack(encodePack([]), 5)).toEqual([]);
  });

  it("stores a partition moving 10 records a cycle in 7 bytes per sample after the newest", () => {
    const points = Array.from({ length: 30 }, (_, i) => {
      const end = 1_234_567_890n + BigInt(i) * 10n;
      return { at: T0 + i * 10_000, values: [0n, end, end - 3n, end - 3n, 3n] };
    });
    const pack = encodePack(points);
    // count 1 + newest (mask 1, time in seconds 5, values 1 + 5 + 5 + 5 + 1) + 29 × (mask 1, gap 1, five one-byte deltas).
    expect(pack.length).toBe(1 + 23 + 29 * 7);
    expect(decodePack(pack, 5)).toEqual(points);
  });
});

describe("cycle blobs", () => {
  it("writes rows by id, finds each by binary search, values exact, an absent id undefined", () => {
    // Batch rows 0..2 hold series 2049, 7 and 1024; the changed rows come ascending by id.
    const columns = [
      [MAX, 1n, null],
      [null, -2n, MIN],
    ];
    const blobs = encodeCycles({ ids: [7, 1024, 2049], rows: [1, 2, 0] }, columns, 4096);
    expect(blobs.map((b) => b.chunk)).toEqual([0]);
    const blob = blobs[0]!.data;
    expect(blob.length).toBe(4 + 3 * (5 + 16));
    expect(blob.readUInt32LE(0)).toBe(3);
    expect([0, 1, 2].map((k) => blob.readUInt32LE(4 + k * 21))).toEqual([7, 1024, 2049]);
    expect(findCycleEntry(blob, 2049, 2)).toEqual([MAX, null]);
    expect(findCycleEntry(blob, 7, 2)).toEqual([1n, -2n]);
    expect(findCycleEntry(blob, 1024, 2)).toEqual([null, MIN]);
    expect(findCycleEntry(blob, 8, 2)).toBeUndefined();
  });

  it("writes one blob per chunk of ids, each with its own count, and refuses a value beyond int64", () => {
    const columns = [[5n, 6n, 7n, 8n]];
    const blobs = encodeCycles({ ids: [1, 2, 1024, 3000], rows: [0, 1, 2, 3] }, columns, 1024);
    expect(blobs.map((b) => [b.chunk, b.data.length])).toEqual([[0, 4 + 2 * 13], [1, 4 + 13], [2, 4 + 13]]);
    expect(blobs.map((b) => [1, 2, 1024, 3000].map((id) => findCycleEntry(b.data, id, 1)))).toEqual([
      [[5n], [6n], undefined, undefined],
      [undefined, undefined, [7n], undefined],
      [undefined, undefined, undefined, [8n]],
    ]);
    expect(() => encodeCycles({ ids: [1], rows: [0] }, [[MAX + 1n]], 1024)).toThrow(RangeError);
  });
});
