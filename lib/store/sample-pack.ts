/**
 * Binary layouts of packed history (migration 7; tiers.ts), shared by both stores.
 *
 * PACK: one series' points of one tier and bucket, newest first: a varint count, then per point a null mask (bit j:
 * value j is null), the time (the newest absolute, the others as the gap to the newer one; PackWriter.time) and each
 * non-null value as a zigzag varint: the difference to the newer point's value when that one is not null, else the
 * value itself.
 * Offsets that move by a few records a cycle cost one or two bytes each; the newest point decodes alone (rollups).
 *
 * CYCLE: a write's samples of many series at one time, by series id: a u32 count, then per entry a u32 id, a u8 null
 * mask and each value as an int64 (0 when null): fixed width, so one series is found by binary search (written by
 * cycle-changes.ts).
 */

export type PackValues = (bigint | null)[];

export interface PackPoint {
  at: number;
  values: PackValues;
}

/** A value on its way into a pack: a number when it is a safe integer (no BigInt work on the write path), else a bigint. */
export type PackInput = bigint | number | null;

/** A point to encode. */
export interface PackInputPoint {
  at: number;
  values: readonly PackInput[];
}

const safe = BigInt(Number.MAX_SAFE_INTEGER);

/** Bytes of packs, growing as written: one pack (encodePack), or many one after the other (staged-packs.ts). */
export class PackWriter {
  private buf: Buffer;
  length = 0;

  constructor(capacity = 256) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }

  /** An unsigned varint of a non-negative safe integer. */
  varint(n: number): void {
    this.reserve(8);
    if (n < 2_147_483_648) {
      // Below 2^31 (nearly every time, gap and difference): bit operations instead of divisions.
      while (n >= 128) {
        this.buf[this.length++] = (n & 127) | 128;
        n >>>= 7;
      }
      this.buf[this.length++] = n;
      return;
    }
    while (n >= 128) {
      this.buf[this.length++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.length++] = n;
  }

  /** A zigzag varint of a safe integer (falls back to bigints beyond 2^53). */
  zigzagNumber(d: number): void {
    const z = d >= 0 ? d * 2 : -d * 2 - 1;
    if (z <= Number.MAX_SAFE_INTEGER) this.varint(z);
    else this.zigzag(BigInt(d));
  }

  /** A zigzag varint of any bigint (an int64 difference may need 65 bits). */
  zigzag(v: bigint): void {
    const z = v >= 0n ? v * 2n : -v * 2n - 1n;
    if (z <= safe) return this.varint(Number(z));
    let rest = z;
    while (rest >= 128n) {
      this.byte(Number(rest % 128n) | 128);
      rest /= 128n;
    }
    this.byte(Number(rest));
  }

  /** A time or gap: whole seconds (every poll's and bucket's) as (s × 2 + 1), else (ms × 2): 10 s is one byte. */
  time(ms: number): void {
    this.varint(ms % 1000 === 0 ? (ms / 1000) * 2 + 1 : ms * 2);
  }

  /** A value as the difference to the newer point's (`base`), or itself when the newer one has none. */
  delta(base: PackInput | undefined, v: bigint | number): void {
    if (base === undefined || base === null) {
      if (typeof v === "number") this.zigzagNumber(v);
      else this.zigzag(v);
      return;
    }
    if (typeof base === "number" && typeof v === "number") {
      const d = base - v;
      if (Number.isSafeInteger(d)) return this.zigzagNumber(d);
    }
    this.zigzag(BigInt(base) - BigInt(v));
  }

  /** Bytes [start, end) written, as a view of the writer's buffer: call once everything is written. */
  view(start: number, end: number): Buffer {
    return this.buf.subarray(start, end);
  }

  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

class Reader {
  offset = 0;
  constructor(private readonly buf: Uint8Array) {}

  byte(): number {
    return this.buf[this.offset++]!;
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.offset++]!;
      n += (b & 127) * scale;
      if (b < 128) return n;
      scale *= 128;
    }
  }

  /** A zigzag varint as a bigint: in numbers while exact (7 bytes, 49 bits), in bigints beyond. */
  zigzag(): bigint {
    const start = this.offset;
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.buf[this.offset++]!;
      n += (b & 127) * scale;
      if (b < 128) return n % 2 === 0 ? BigInt(n / 2) : -BigInt((n + 1) / 2);
      scale *= 128;
    }
    this.offset = start;
    let z = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.offset++]!;
      z |= BigInt(b & 127) << shift;
      if (b < 128) break;
      shift += 7n;
    }
    return z % 2n === 0n ? z / 2n : -(z + 1n) / 2n;
  }
}

function readTime(r: Reader): number {
  const n = r.varint();
  return n % 2 === 1 ? ((n - 1) / 2) * 1000 : n / 2;
}

/** Encodes points (oldest first, times strictly increasing) as a pack. */
export function encodePack(points: readonly PackInputPoint[]): Buffer {
  const w = new PackWriter();
  w.varint(points.length);
  let newer: PackInputPoint | undefined;
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i]!;
    let mask = 0;
    for (let j = 0; j < p.values.length; j++) if (p.values[j] === null) mask |= 1 << j;
    w.byte(mask);
    w.time(newer === undefined ? p.at : newer.at - p.at);
    for (let j = 0; j < p.values.length; j++) {
      const v = p.values[j]!;
      if (v !== null) w.delta(newer?.values[j], v);
    }
    newer = p;
  }
  return w.done();
}

function readPoint(r: Reader, width: number, newer: PackPoint | undefined): PackPoint {
  const mask = r.byte();
  const gap = readTime(r);
  const at = newer === undefined ? gap : newer.at - gap;
  const values: PackValues = [];
  for (let j = 0; j < width; j++) {
    if (mask & (1 << j)) {
      values.push(null);
      continue;
    }
    const base = newer?.values[j];
    const z = r.zigzag();
    values.push(base === undefined || base === null ? z : base - z);
  }
  return { at, values };
}

/** A pack's points, oldest first; `width` is the number of value columns. */
export function decodePack(buf: Uint8Array, width: number): PackPoint[] {
  const r = new Reader(buf);
  const count = r.varint();
  const points: PackPoint[] = new Array<PackPoint>(count);
  let newer: PackPoint | undefined;
  for (let i = count - 1; i >= 0; i--) {
    newer = readPoint(r, width, newer);
    points[i] = newer;
  }
  return points;
}

/** A pack's newest point alone (what a coarser tier keeps of the pack). */
export function decodeNewestPoint(buf: Uint8Array, width: number): PackPoint {
  const r = new Reader(buf);
  r.varint();
  return readPoint(r, width, undefined);
}

const entryBytes = (width: number) => 5 + 8 * width;

function readEntryValues(buf: Buffer, at: number, width: number): PackValues {
  const mask = buf[at + 4]!;
  const values: PackValues = [];
  for (let j = 0; j < width; j++) values.push(mask & (1 << j) ? null : buf.readBigInt64LE(at + 5 + 8 * j));
  return values;
}

/** One series' values in a cycle blob (binary search), or undefined when the write did not hold it. */
export function findCycleEntry(buf: Buffer, id: number, width: number): PackValues | undefined {
  const size = entryBytes(width);
  let lo = 0;
  let hi = buf.readUInt32LE(0) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const got = buf.readUInt32LE(4 + mid * size);
    if (got === id) return readEntryValues(buf, 4 + mid * size, width);
    if (got < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
