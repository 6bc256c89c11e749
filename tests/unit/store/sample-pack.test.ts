import { describe, expect, it } from "vitest";
import { decodeNewestPoint, decodePack, encodePack } from "@/lib/store/sample-pack";

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
