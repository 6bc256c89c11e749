/**
 * Packing a chunk's staged cycle blobs into raw packs (tiers.ts: a closed 5-minute bucket's samples, one pack per
 * series and bucket), straight from the blobs' bytes. A chunk holds about 60 blobs of 1,024 series at a 5 s poll: the
 * points are found through typed arrays and encoded as they are read, never as an object per sample.
 */
import { PackWriter, type PackPoint } from "./sample-pack";
import { packOf } from "./tiers";

/** One staged cycle blob (CYCLE layout, sample-pack.ts) with its write's time, in the order written. */
export interface StagedBlobRow {
  at: number;
  data: Buffer;
}

/** A raw pack to insert: its bytes are a PACK (sample-pack.ts). */
export interface EncodedPack {
  series: number;
  bucket: number;
  data: Buffer;
}

/** A point of a pack being built: an entry of a blob (`ref` ≥ 0), or point −1 − `ref` of the existing pack. */
interface PointRef {
  at: number;
  ref: number;
}

const entryBytes = (width: number) => 5 + 8 * width;

/**
 * The raw packs of the staged blobs, one per series and 5-minute bucket, the buckets in the order first written and
 * the series in each in the order first written. A later sample of a series at the same time replaces the earlier;
 * a sample older than the newest one kept is put in time order (a late write); `existing` (decoded packs keyed
 * `series:bucket`, written before any staged sample) is merged in the same way, its points as the earliest writes.
 */
export function packStagedBlobs(
  blobs: readonly StagedBlobRow[],
  width: number,
  existing: ReadonlyMap<string, PackPoint[]>,
): EncodedPack[] {
  const size = entryBytes(width);
  let total = 0;
  for (const b of blobs) total += b.data.readUInt32LE(0);
  // Entry e: blob entryBlob[e] at byte entryAt[e]; the next entry of its series and bucket, −1 at the end.
  const entryBlob = new Int32Array(total);
  const entryAt = new Int32Array(total);
  const next = new Int32Array(total).fill(-1);
  const groups: { series: number; bucket: number; head: number; tail: number; count: number }[] = [];
  const byBucket = new Map<number, Map<number, number>>();
  let e = 0;
  for (let b = 0; b < blobs.length; b++) {
    const { at, data } = blobs[b]!;
    const bucket = packOf(0, at);
    let inBucket = byBucket.get(bucket);
    if (inBucket === undefined) byBucket.set(bucket, (inBucket = new Map()));
    const count = data.readUInt32LE(0);
    for (let i = 0; i < count; i++, e++) {
      const offset = 4 + i * size;
      const series = data.readUInt32LE(offset);
      entryBlob[e] = b;
      entryAt[e] = offset;
      const g = inBucket.get(series);
      if (g === undefined) {
        inBucket.set(series, groups.length);
        groups.push({ series, bucket, head: e, tail: e, count: 1 });
      } else {
        const group = groups[g]!;
        next[group.tail] = e;
        group.tail = e;
        group.count++;
      }
    }
  }
  const views = blobs.map((b) => new DataView(b.data.buffer, b.data.byteOffset, b.data.byteLength));
  const w = new PackWriter(Math.max(256, total * 8));
  const encoder = new PointEncoder(w, width);
  const spans: { series: number; bucket: number; start: number; end: number }[] = [];
  for (const inBucket of byBucket.values()) {
    for (const g of inBucket.values()) {
      const group = groups[g]!;
      const old = existing.get(`${group.series}:${group.bucket}`) ?? [];
      const start = w.length;
      const refs = orderPoints(blobs, entryBlob, next, group.head, old);
      w.varint(refs.length);
      for (let k = refs.length - 1; k >= 0; k--) {
        const { at, ref } = refs[k]!;
        const newerAt = k === refs.length - 1 ? undefined : refs[k + 1]!.at;
        if (ref >= 0) encoder.entry(views[entryBlob[ref]!]!, entryAt[ref]!, at, newerAt);
        else encoder.point(old[-1 - ref]!, newerAt);
      }
      encoder.reset();
      spans.push({ series: group.series, bucket: group.bucket, start, end: w.length });
    }
  }
  return spans.map((s) => ({ series: s.series, bucket: s.bucket, data: w.view(s.start, s.end) }));
}

/**
 * One pack's points in time order, as tiers.ts's packing rules put them: the existing points first, then each staged
 * sample in write order, appended when newer than the newest, else replacing the one at its time or sorted in.
 */
function orderPoints(
  blobs: readonly StagedBlobRow[],
  entryBlob: Int32Array,
  next: Int32Array,
  head: number,
  old: readonly PackPoint[],
): PointRef[] {
  const refs: PointRef[] = old.map((p, k) => ({ at: p.at, ref: -1 - k }));
  for (let e = head; e >= 0; e = next[e]!) {
    const at = blobs[entryBlob[e]!]!.at;
    const last = refs[refs.length - 1];
    if (last === undefined || last.at < at) {
      refs.push({ at, ref: e });
      continue;
    }
    const same = refs.findIndex((r) => r.at === at);
    if (same >= 0) refs[same] = { at, ref: e };
    else {
      refs.push({ at, ref: e });
      refs.sort((a, b) => a.at - b.at);
    }
  }
  return refs;
}

/** A value's kind in PointEncoder's columns. */
const NONE = 0;
const NUMBER = 1;
const BIG = 2;

/**
 * Writes a pack's points newest first (sample-pack.ts's PACK), each value as the difference to the newer point's.
 * Values sit in typed arrays (a safe integer as a float64, a larger one in a side array): no number is boxed per value.
 */
class PointEncoder {
  private newer: Slots;
  private current: Slots;
  private hasNewer = false;

  constructor(
    private readonly w: PackWriter,
    private readonly width: number,
  ) {
    this.newer = createSlots(width);
    this.current = createSlots(width);
  }

  /** The point of a blob entry at byte `offset` (its mask, then its int64 values). */
  entry(data: DataView, offset: number, at: number, newerAt: number | undefined): void {
    const mask = data.getUint8(offset + 4);
    const { kinds, numbers, bigs } = this.current;
    for (let j = 0; j < this.width; j++) {
      if (mask & (1 << j)) {
        kinds[j] = NONE;
        continue;
      }
      const o = offset + 5 + 8 * j;
      const high = data.getInt32(o + 4, true);
      // |high| < 2^21: the value is below 2^53 in magnitude, exact as a number.
      if (high >= -2_097_152 && high < 2_097_152) {
        kinds[j] = NUMBER;
        numbers[j] = high * 4_294_967_296 + data.getUint32(o, true);
      } else {
        kinds[j] = BIG;
        bigs[j] = data.getBigInt64(o, true);
      }
    }
    this.write(mask, at, newerAt);
  }

  /** A decoded point of an existing pack. */
  point(p: PackPoint, newerAt: number | undefined): void {
    const { kinds, bigs } = this.current;
    let mask = 0;
    for (let j = 0; j < this.width; j++) {
      const v = p.values[j] ?? null;
      if (v === null) {
        mask |= 1 << j;
        kinds[j] = NONE;
      } else {
        kinds[j] = BIG;
        bigs[j] = v;
      }
    }
    this.write(mask, p.at, newerAt);
  }

  /** Forgets the newer point: the next one starts a pack. */
  reset(): void {
    this.hasNewer = false;
  }

  private write(mask: number, at: number, newerAt: number | undefined): void {
    const w = this.w;
    w.byte(mask);
    w.time(newerAt === undefined ? at : newerAt - at);
    const cur = this.current;
    const newer = this.newer;
    for (let j = 0; j < this.width; j++) {
      const kind = cur.kinds[j]!;
      if (kind === NONE) continue;
      const base = this.hasNewer ? newer.kinds[j]! : NONE;
      if (kind === NUMBER && base === NUMBER) {
        const d = newer.numbers[j]! - cur.numbers[j]!;
        if (Number.isSafeInteger(d)) {
          w.zigzagNumber(d);
          continue;
        }
      }
      const v = kind === NUMBER ? cur.numbers[j]! : cur.bigs[j]!;
      if (base === NONE) w.delta(undefined, v);
      else w.delta(base === NUMBER ? newer.numbers[j]! : newer.bigs[j]!, v);
    }
    this.newer = cur;
    this.current = newer;
    this.hasNewer = true;
  }
}

/** One point's values by column: each one's kind, and its value as a float64 (NUMBER) or a bigint (BIG). */
interface Slots {
  kinds: Uint8Array;
  numbers: Float64Array;
  bigs: bigint[];
}

function createSlots(width: number): Slots {
  return { kinds: new Uint8Array(width), numbers: new Float64Array(width), bigs: new Array<bigint>(width).fill(0n) };
}

