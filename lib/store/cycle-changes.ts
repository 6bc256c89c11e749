/**
 * A write's changed samples as CYCLE blobs (sample-pack.ts), in one pass over the batch: each row is compared, as
 * numbers, with the values last written for its series, and only a changed row is encoded, where its blob entry goes.
 * The last values are kept as numbers (a Float64Array indexed by series id and column, NaN: null), not as references
 * to the previous cycle's bigints: at 290,000 series a cycle each value is read once, and the garbage collector has
 * no old bigints to trace. A value beyond 2^53 (an int64 a float64 would round) is kept aside as a bigint.
 */
import type { SeriesBatch, SeriesColumn } from "./series-batch";

/** One chunk's blob of a write. */
export interface CycleBlob {
  chunk: number;
  data: Buffer;
}

const maxInt64 = 2n ** 63n - 1n;
const minInt64 = -(2n ** 63n);
const twoTo32 = 2 ** 32;

/**
 * The values last written per series id, and the encoding of a write's changed rows. `encode` does not remember: the
 * caller calls `remember` once the write committed (a failed write is tried again).
 */
export class CycleChanges {
  private readonly size: number;
  /** Per id, `width` values as last written (NaN: null, or a value beyond 2^53 held in `inexact`). */
  private last = new Float64Array(0);
  /** Per id: 1 once written. */
  private written = new Uint8Array(0);
  /** Values beyond 2^53 as last written, by `id × width + column` (nearly always empty). */
  private readonly inexact = new Map<number, bigint>();
  /** The bytes the blobs are views of, reused by every encode (14 MB a cycle at 190,000 group partitions). */
  private buffer = Buffer.alloc(0);
  private view = new DataView(this.buffer.buffer);
  /** The last encode's entries (series id, batch row), and its batch: what `remember` keeps. */
  private pendingIds = new Int32Array(0);
  private pendingRows = new Int32Array(0);
  private pendingCount = 0;
  private pendingBatch: SeriesBatch | null = null;

  constructor(
    private readonly width: number,
    private readonly chunkSize: number,
  ) {
    if (width > 8) throw new RangeError(`a cycle entry holds at most 8 values, not ${width}`);
    this.size = 5 + 8 * width;
  }

  /**
   * The blobs of the rows (`ids[i]`: row i's series) whose values differ from the last remembered, one per chunk of
   * ids, entries ascending by id; of rows of one series, the last that differs. Throws RangeError for a value beyond
   * int64 (a DataView would store it modulo 2^64) or a number that is not an exact integer. The blobs are views of a
   * buffer the next encode writes over: write them before encoding again.
   */
  encode(batch: SeriesBatch, ids: readonly number[]): CycleBlob[] {
    const { size, chunkSize } = this;
    const changed = this.listChangedRows(batch, ids);
    const buf = this.reserveBuffer(changed * size + 4 * countChunks(ids, chunkSize, changed));
    const view = this.view;
    const { pendingIds, pendingRows } = this;
    const numbers = this.readNumberColumns(batch);
    const blobs: CycleBlob[] = [];
    let pos = 0;
    let header = -1;
    let chunk = -1;
    for (let e = 0; e < changed; e++) {
      const id = pendingIds[e]!;
      const c = Math.floor(id / chunkSize);
      if (c !== chunk) {
        if (header >= 0) blobs.push(closeBlob(view, buf, chunk, header, pos, size));
        header = pos;
        pos += 4;
        chunk = c;
      }
      if (numbers !== null) this.writeNumberEntry(view, buf, pos, id, numbers, pendingRows[e]!);
      else this.writeEntry(view, buf, pos, id, batch.values, pendingRows[e]!);
      pos += size;
    }
    if (header >= 0) blobs.push(closeBlob(view, buf, chunk, header, pos, size));
    return blobs;
  }

  /** Remembers the values of the last encode's entries (call once its write committed). */
  remember(): void {
    const batch = this.pendingBatch;
    if (batch === null) return;
    const { width } = this;
    const numbers = this.readNumberColumns(batch);
    if (numbers !== null) {
      this.rememberNumbers(numbers);
      return;
    }
    for (let e = 0; e < this.pendingCount; e++) {
      const id = this.pendingIds[e]!;
      const row = this.pendingRows[e]!;
      this.reserve(id);
      this.written[id] = 1;
      for (let j = 0; j < width; j++) this.keepValue(id * width + j, batch.values[j]!, row);
    }
    this.pendingBatch = null;
    this.pendingCount = 0;
  }

  /** remember for columns of numbers: each entry's values copied as they are. */
  private rememberNumbers(columns: readonly Float64Array[]): void {
    const { width } = this;
    const count = this.pendingCount;
    if (count > 0) this.reserve(this.pendingIds[count - 1]!);
    const { written, last, pendingIds, pendingRows } = this;
    for (let e = 0; e < count; e++) {
      const id = pendingIds[e]!;
      const row = pendingRows[e]!;
      written[id] = 1;
      const base = id * width;
      for (let j = 0; j < width; j++) last[base + j] = columns[j]![row]!;
    }
    this.pendingBatch = null;
    this.pendingCount = 0;
  }

  /**
   * Lists, in id order, the entries to write (pendingIds, pendingRows): each row differing from its series' last
   * remembered values, a later differing row of the same series replacing the earlier one. Returns their count.
   */
  private listChangedRows(batch: SeriesBatch, ids: readonly number[]): number {
    const order = listInIdOrder(ids);
    const count = order === null ? ids.length : order.length;
    if (this.pendingIds.length < count) {
      this.pendingIds = new Int32Array(count);
      this.pendingRows = new Int32Array(count);
    }
    const { pendingIds, pendingRows } = this;
    const numbers = this.readNumberColumns(batch);
    let n = 0;
    let lastId = -1;
    for (let k = 0; k < count; k++) {
      const row = order === null ? k : order[k]!;
      const id = ids[row]!;
      if (numbers !== null ? this.isUnchangedNumbers(numbers, id, row) : this.isUnchanged(batch.values, id, row)) continue;
      // A row of the series just listed replaces its entry (the later row is written).
      if (id === lastId) {
        pendingRows[n - 1] = row;
        continue;
      }
      pendingIds[n] = id;
      pendingRows[n] = row;
      n++;
      lastId = id;
    }
    this.pendingCount = n;
    this.pendingBatch = batch;
    return n;
  }

  /**
   * The batch's columns when every one is a Float64Array and no value beyond 2^53 is remembered (the pipeline's
   * batches): compared and kept by the loops for numbers alone, which the JIT keeps monomorphic. Else null.
   */
  private readNumberColumns(batch: SeriesBatch): Float64Array[] | null {
    if (this.inexact.size > 0) return null;
    const numbers: Float64Array[] = [];
    for (const column of batch.values) {
      if (!(column instanceof Float64Array)) return null;
      numbers.push(column);
    }
    return numbers;
  }

  /** isUnchanged for columns of numbers, nothing remembered beyond 2^53 (NaN equals NaN: null). */
  private isUnchangedNumbers(columns: readonly Float64Array[], id: number, row: number): boolean {
    if (id >= this.written.length || this.written[id] === 0) return false;
    const { width, last } = this;
    const base = id * width;
    for (let j = 0; j < width; j++) {
      const v = columns[j]![row]!;
      const was = last[base + j]!;
      if (v !== was && (v === v || was === was)) return false;
    }
    return true;
  }

  /** Whether row `row`'s values equal series `id`'s last remembered ones. */
  private isUnchanged(columns: readonly SeriesColumn[], id: number, row: number): boolean {
    if (id >= this.written.length || this.written[id] === 0) return false;
    const { width, last } = this;
    const base = id * width;
    for (let j = 0; j < width; j++) {
      const column = columns[j]!;
      const was = last[base + j]!;
      if (column instanceof Float64Array) {
        const v = column[row]!;
        if (v === was) continue;
        if (v !== v && was !== was && !this.inexact.has(base + j)) continue;
        return false;
      }
      const v = column[row]!;
      if (v === null) {
        if (was !== was && !this.inexact.has(base + j)) continue;
        return false;
      }
      const number = Number(v);
      if (Number.isSafeInteger(number)) {
        if (number === was) continue;
        return false;
      }
      if (this.inexact.get(base + j) !== v) return false;
    }
    return true;
  }

  /** Writes series `id`'s entry of row `row` at `at`: its id, null mask and each value as int64. */
  private writeEntry(view: DataView, buf: Buffer, at: number, id: number, columns: readonly SeriesColumn[], row: number): void {
    view.setUint32(at, id, true);
    let mask = 0;
    for (let j = 0; j < this.width; j++) {
      const o = at + 5 + 8 * j;
      const column = columns[j]!;
      const v = column[row]!;
      if (typeof v === "number") {
        // A flow column's offset (NaN: none): its int64 words without a bigint, as setBigInt64 would write them.
        if (v !== v) {
          mask |= 1 << j;
          view.setInt32(o, 0, true);
          view.setInt32(o + 4, 0, true);
          continue;
        }
        if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not an exact integer`);
        const high = Math.floor(v / twoTo32);
        view.setInt32(o, (v - high * twoTo32) | 0, true);
        view.setInt32(o + 4, high, true);
      } else if (v === null) {
        mask |= 1 << j;
        view.setInt32(o, 0, true);
        view.setInt32(o + 4, 0, true);
      } else {
        if (v > maxInt64 || v < minInt64) throw new RangeError(`${v} is not an int64`);
        view.setBigInt64(o, v, true);
      }
    }
    buf[at + 4] = mask;
  }

  /** writeEntry for columns of numbers (NaN: null). */
  private writeNumberEntry(view: DataView, buf: Buffer, at: number, id: number, columns: readonly Float64Array[], row: number): void {
    view.setUint32(at, id, true);
    let mask = 0;
    for (let j = 0; j < this.width; j++) {
      const o = at + 5 + 8 * j;
      const v = columns[j]![row]!;
      let low = 0;
      let high = 0;
      if (v !== v) mask |= 1 << j;
      else if (v >= 0 && v < 2_147_483_648 && (v | 0) === v) low = v;
      else {
        if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not an exact integer`);
        high = Math.floor(v / twoTo32);
        low = (v - high * twoTo32) | 0;
      }
      view.setInt32(o, low, true);
      view.setInt32(o + 4, high, true);
    }
    buf[at + 4] = mask;
  }

  /** Keeps column `column`'s value of row `row` at `slot` (id × width + column) as the last written. */
  private keepValue(slot: number, column: SeriesColumn, row: number): void {
    const v = column[row]!;
    if (typeof v === "number") {
      this.last[slot] = v;
      if (this.inexact.size > 0) this.inexact.delete(slot);
      return;
    }
    const number = v === null ? Number.NaN : Number(v);
    if (v === null || Number.isSafeInteger(number)) {
      this.last[slot] = number;
      if (this.inexact.size > 0) this.inexact.delete(slot);
      return;
    }
    this.last[slot] = Number.NaN;
    this.inexact.set(slot, v);
  }

  /** A buffer of at least `bytes` (grown by a quarter more than asked, so a slowly growing write rarely grows it). */
  private reserveBuffer(bytes: number): Buffer {
    if (this.buffer.length < bytes) {
      this.buffer = Buffer.allocUnsafeSlow(Math.ceil(bytes * 1.25));
      this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
    }
    return this.buffer;
  }

  /** Room for series `id` (ids are dense from 1: the arrays double as they grow). */
  private reserve(id: number): void {
    if (id < this.written.length) return;
    const capacity = Math.max(1024, 2 * this.written.length, id + 1);
    const written = new Uint8Array(capacity);
    written.set(this.written);
    const last = new Float64Array(capacity * this.width);
    last.set(this.last);
    this.written = written;
    this.last = last;
  }
}

/** The blob of one chunk's entries [header + 4, end): its count written in its header. */
function closeBlob(view: DataView, buf: Buffer, chunk: number, header: number, end: number, size: number): CycleBlob {
  view.setUint32(header, (end - header - 4) / size, true);
  return { chunk, data: buf.subarray(header, end) };
}

/**
 * The rows in id order, the rows of one id in batch order, or null when the batch already is strictly ascending (a
 * cycle lists its series in the order their ids were created: nearly always).
 */
function listInIdOrder(ids: readonly number[]): number[] | null {
  let ascending = true;
  for (let i = 1; i < ids.length && ascending; i++) if (ids[i]! <= ids[i - 1]!) ascending = false;
  if (ascending) return null;
  return ids.map((_, i) => i).sort((a, b) => ids[a]! - ids[b]! || a - b);
}

/** An upper bound of the chunks `entries` of these ids span: never more than the entries, nor the chunks up to the largest id. */
function countChunks(ids: readonly number[], chunkSize: number, entries: number): number {
  let max = 0;
  for (let i = 0; i < ids.length; i++) if (ids[i]! > max) max = ids[i]!;
  return Math.min(entries, Math.floor(max / chunkSize) + 1);
}
