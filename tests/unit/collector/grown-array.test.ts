import { describe, expect, it } from "vitest";
import { growArray, growCapacity } from "@/lib/collector/grown-array";

describe("growArray", () => {
  it("keeps the values, fills the new entries and keeps the array's type", () => {
    const grown = growArray(Float64Array.from([1, 2]), 4, Number.NaN);
    expect(grown).toBeInstanceOf(Float64Array);
    expect([...grown]).toEqual([1, 2, Number.NaN, Number.NaN]);
    expect([...growArray(Int32Array.from([7]), 3, -1)]).toEqual([7, -1, -1]);
    expect([...growArray(Uint8Array.from([3]), 2)]).toEqual([3, 0]);
  });

  it("doubles, at least to the index asked for and to 1,024", () => {
    expect(growCapacity(0, 0)).toBe(1024);
    expect(growCapacity(1024, 1024)).toBe(2048);
    expect(growCapacity(5000, 1024)).toBe(5001);
  });
});
