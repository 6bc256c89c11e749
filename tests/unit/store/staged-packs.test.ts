import { describe, expect, it } from "vitest";
import { CycleChanges } from "@/lib/store/cycle-changes";
import { decodePack, encodePack, type PackInputPoint, type PackPoint } from "@/lib/store/sample-pack";
import { packStagedBlobs, type StagedBlobRow } from "@/lib/store/staged-packs";
import { packOf } from "@/lib/store/tiers";

/** 2025-01-15 03:00:00 UTC: a 5-minute boundary. */
const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

interface HexPack {
  series: number;
  bucket: number;
  data: string;
}

const toHex = (p: { series: number; bucket: number; data: Buffer }): HexPack => ({
  ...p,
  data: p.data.toString("hex"),
});

interface Sample {
  series: number;
  at: number;
  values: (bigint | null)[];
}

/**
 * The packing rules written plainly, one object per sample (what the store did before packStagedBlobs): samples in
 * write order grouped by bucket then series, appended when newer than the newest point, else replacing the point at
 * their time or sorted in; existing points first.
 */
function packPlainly(samples: readonly Sample[], existing: ReadonlyMap<string, PackPoint[]>): HexPack[] {
  const groups = new Map<number, Map<number, PackInputPoint[]>>();
  for (const s of samples) {
    const bucket = packOf(0, s.at);
    let inBucket = groups.get(bucket);
    if (inBucket === undefined) groups.set(bucket, (inBucket = new Map()));
    let points = inBucket.get(s.series);
    if (points === undefined) inBucket.set(s.series, (points = [...(existing.get(`${s.series}:${bucket}`) ?? [])]));
    const last = points.at(-1);
    const same = points.findIndex((p) => p.at === s.at);
    if (last === undefined || last.at < s.at) points.push({ at: s.at, values: s.values });
    else if (same >= 0) points[same] = { at: s.at, values: s.values };
    else {
      points.push({ at: s.at, values: s.values });
      points.sort((a, b) => a.at - b.at);
    }
  }
  return [...groups].flatMap(([bucket, inBucket]) =>
    [...inBucket].map(([series, points]) => ({ series, bucket, data: encodePack(points).toString("hex") })),
  );
}

/** The blobs of one write of never-written series (each row changed). */
const encodeBlobs = (ids: number[], columns: (bigint | null)[][]) =>
  new CycleChanges(columns.length, 1024).encode({ keys: [], values: columns }, ids);

/** A small deterministic generator (xorshift32), so a failing case can be replayed. */
function createRandom(seed: number): (n: number) => number {
  let x = seed || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Values that take every path: nulls, small moves, the 2^53 boundary on both sides, the int64 extremes. */
function pickValue(random: (n: number) => number): bigint | null {
  const kinds = [
    null,
    BigInt(random(1000)),
    1_000_000n + BigInt(random(50)),
    2n ** 53n - 1n + BigInt(random(3)),
    -(2n ** 53n) + BigInt(random(3) - 1),
    MAX - BigInt(random(2)),
    MIN + BigInt(random(2)),
  ];
  return kinds[random(kinds.length)]!;
}

/** Writes of random series of one chunk at mostly rising times, some repeated or late, over three buckets. */
function createWrites(seed: number, width: number): { blobs: StagedBlobRow[]; samples: Sample[] } {
  const random = createRandom(seed);
  const blobs: StagedBlobRow[] = [];
  const samples: Sample[] = [];
  let at = T0;
  for (let write = 0; write < 40; write++) {
    const step = random(10);
    // Mostly 10 s on; sometimes the same time again (a retried write) or 30 s back (a late write).
    at = step === 0 ? at : step === 1 ? at - 30_000 : at + 10_000 + (step === 2 ? 1 : 0);
    const ids = [...new Set(Array.from({ length: 1 + random(12) }, () => 2048 + random(16)))].sort((a, b) => a - b);
    const columns = Array.from({ length: width }, () => ids.map(() => pickValue(random)));
    const [blob] = encodeBlobs(ids, columns);
    blobs.push({ at, data: blob!.data });
    ids.forEach((series, k) => samples.push({ series, at, values: columns.map((c) => c[k]!) }));
  }
  return { blobs, samples };
}

describe("packing staged blobs (packStagedBlobs)", () => {
  it("writes the packs the plain rules write, byte for byte, for 200 random chunks of 5 and 8 values", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const width = seed % 2 === 0 ? 5 : 8;
      const { blobs, samples } = createWrites(seed, width);
      const packed = packStagedBlobs(blobs, width, new Map()).map(toHex);
      expect(packed, `seed ${seed}`).toEqual(packPlainly(samples, new Map()));
    }
  });

  it("merges the packs a bucket already has, a staged sample replacing an existing point of its time", () => {
    const width = 5;
    const { blobs, samples } = createWrites(7, width);
    const first = samples[0]!;
    const bucket = packOf(0, first.at);
    const old = [
      { at: bucket, values: [1n, null, 3n, MAX, MIN] },
      { at: first.at, values: [9n, 9n, 9n, 9n, 9n] },
      { at: bucket + 299_000, values: [null, null, null, null, 4n] },
    ];
    const existing = new Map([[`${first.series}:${bucket}`, old]]);
    const packed = packStagedBlobs(blobs, width, existing);
    expect(packed.map(toHex)).toEqual(packPlainly(samples, existing));
    const merged = decodePack(packed.find((p) => p.series === first.series && p.bucket === bucket)!.data, width);
    expect(merged[0]).toEqual(old[0]);
    expect(merged.find((p) => p.at === first.at)!.values).not.toEqual(old[1]!.values);
    expect(merged.at(-1)!.at).toBe(bucket + 299_000);
  });

  it("packs nothing from no blobs, and one blob of one series as a pack of one point", () => {
    expect(packStagedBlobs([], 5, new Map())).toEqual([]);
    const [blob] = encodeBlobs([3], [[5n], [null]]);
    const [pack] = packStagedBlobs([{ at: T0 + 10_000, data: blob!.data }], 2, new Map());
    expect(pack!.series).toBe(3);
    expect(pack!.bucket).toBe(T0);
    expect(decodePack(pack!.data, 2)).toEqual([{ at: T0 + 10_000, values: [5n, null] }]);
  });
});
