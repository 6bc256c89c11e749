import { describe, expect, it } from "vitest";
import { type CycleBlob, CycleChanges } from "@/lib/store/cycle-changes";
import { findCycleEntry } from "@/lib/store/sample-pack";
import type { SeriesValue } from "@/lib/store/series-batch";

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

const encode = (changes: CycleChanges, ids: number[], columns: SeriesValue[][]) =>
  changes.encode({ keys: [], values: columns }, ids);

/** Each blob's entries as [id, values], in blob order. */
function listEntries(blobs: readonly CycleBlob[], width: number): [number, SeriesValue[]][] {
  return blobs.flatMap(({ data }) =>
    Array.from({ length: data.readUInt32LE(0) }, (_, e) => {
      const id = data.readUInt32LE(4 + e * (5 + 8 * width));
      return [id, findCycleEntry(data, id, width)!] as [number, SeriesValue[]];
    }),
  );
}

describe("a write's changed rows as cycle blobs (CycleChanges)", () => {
  it("writes the rows whose values differ from the last remembered, by id, an id's later changed row kept", () => {
    const changes = new CycleChanges(2, 1024);
    // Rows 2 and 3 are the same series (id 5): the later one is written.
    const first = encode(changes, [9, 4, 5, 5], [
      [10n, 20n, 30n, 31n],
      [null, 1n, 2n, 3n],
    ]);
    expect(listEntries(first, 2)).toEqual([
      [4, [20n, 1n]],
      [5, [31n, 3n]],
      [9, [10n, null]],
    ]);
    changes.remember();
    // Ids 9, 4 and 5 hold their remembered values; id 7 was never written.
    const second = encode(changes, [9, 4, 5, 7], [
      [10n, 20n, 31n, 40n],
      [null, 1n, 3n, null],
    ]);
    expect(listEntries(second, 2)).toEqual([[7, [40n, null]]]);
    // Not remembered (as after a failed write): the same write again lists the same row.
    const again = encode(changes, [9, 4, 5, 7], [[10n, 20n, 31n, 40n], [null, 1n, 3n, null]]);
    expect(listEntries(again, 2)).toEqual([[7, [40n, null]]]);
    // A null that became 0 and a value that became null are changes; nothing changed is no blob at all.
    const third = encode(changes, [9, 4, 5], [
      [10n, 20n, 31n],
      [0n, 1n, null],
    ]);
    expect(listEntries(third, 2)).toEqual([
      [5, [31n, null]],
      [9, [10n, 0n]],
    ]);
    changes.remember();
    expect(encode(changes, [4, 5, 9], [[20n, 31n, 10n], [1n, null, 0n]])).toEqual([]);
  });

  it("keeps an id's earlier changed row when its later row equals the remembered values", () => {
    const changes = new CycleChanges(1, 1024);
    encode(changes, [3], [[7n]]);
    changes.remember();
    // Row 0 differs from the remembered 7, row 1 (the same series) does not: row 0 is written, as before.
    expect(listEntries(encode(changes, [3, 3], [[8n, 7n]]), 1)).toEqual([[3, [8n]]]);
  });

  it("writes rows by id with every value exact, and finds each by binary search, an absent id undefined", () => {
    // Batch rows 0..2 hold series 2049, 7 and 1024.
    const columns = [[MAX, 1n, null], [null, -2n, MIN]];
    const blobs = new CycleChanges(2, 4096).encode({ keys: [], values: columns }, [2049, 7, 1024]);
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

  it("writes one blob per chunk of ids, each with its own count, skipping a chunk with no change", () => {
    const changes = new CycleChanges(1, 1024);
    const blobs = encode(changes, [1, 2, 1024, 3000], [[5n, 6n, 7n, 8n]]);
    expect(blobs.map((b) => [b.chunk, b.data.length])).toEqual([[0, 4 + 2 * 13], [1, 4 + 13], [2, 4 + 13]]);
    expect(blobs.map((b) => [1, 2, 1024, 3000].map((id) => findCycleEntry(b.data, id, 1)))).toEqual([
      [[5n], [6n], undefined, undefined],
      [undefined, undefined, [7n], undefined],
      [undefined, undefined, undefined, [8n]],
    ]);
    changes.remember();
    const next = encode(changes, [1, 2, 1024, 3000], [[5n, 9n, 7n, 10n]]);
    expect(next.map((b) => b.chunk)).toEqual([0, 2]);
    expect(listEntries(next, 1)).toEqual([[2, [9n]], [3000, [10n]]]);
  });

  it("sees a change in either half of a value's 64 bits", () => {
    const changes = new CycleChanges(2, 1024);
    encode(changes, [1, 2], [[5n, -1n], [7n, 7n]]);
    changes.remember();
    const next = encode(changes, [1, 2], [[5n + 2n ** 32n, -1n], [7n, 7n - 2n ** 40n]]);
    expect(listEntries(next, 2)).toEqual([[1, [5n + 2n ** 32n, 7n]], [2, [-1n, 7n - 2n ** 40n]]]);
  });

  it("refuses a value beyond int64 (a DataView would store it modulo 2^64)", () => {
    expect(() => encode(new CycleChanges(1, 1024), [1], [[MAX + 1n]])).toThrow(RangeError);
    expect(() => encode(new CycleChanges(1, 1024), [1], [[MIN - 1n]])).toThrow(RangeError);
  });

  it("encodes a Float64Array column (a flow's offsets, NaN: none) as the same int64 bytes as bigints, and compares it with them", () => {
    const values = [0n, 1n, -1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n) - 5n, 2n ** 53n - 1n, -(2n ** 53n) + 1n, null];
    const ids = values.map((_, i) => i + 1);
    const asNumbers = Float64Array.from(values, (v) => (v === null ? Number.NaN : Number(v)));
    const fromBigints = encode(new CycleChanges(1, 1024), ids, [values]);
    const numbers = new CycleChanges(1, 1024);
    const fromNumbers = numbers.encode({ keys: [], values: [asNumbers] }, ids);
    expect(fromNumbers.map((b) => b.data.toString("hex"))).toEqual(fromBigints.map((b) => b.data.toString("hex")));
    numbers.remember();
    // The same values again, as bigints, are unchanged; one moved value is written.
    expect(encode(numbers, ids, [values])).toEqual([]);
    const moved = values.map((v, i) => (i === 3 ? 2n ** 32n : v));
    expect(listEntries(numbers.encode({ keys: [], values: [Float64Array.from(moved, (v) => (v === null ? Number.NaN : Number(v)))] }, ids), 1)).toEqual([[4, [2n ** 32n]]]);
  });

  it("refuses a number that is not an exact integer", () => {
    expect(() => new CycleChanges(1, 1024).encode({ keys: [], values: [Float64Array.of(2 ** 53)] }, [1])).toThrow(RangeError);
    expect(() => new CycleChanges(1, 1024).encode({ keys: [], values: [Float64Array.of(1.5)] }, [1])).toThrow(RangeError);
  });
});
