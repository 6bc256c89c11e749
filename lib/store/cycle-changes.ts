/**
 * A write's changed samples as CYCLE blobs (sample-pack.ts), in one pass over the batch: each row is encoded where its
 * blob entry goes and compared, as bytes, with the values last written for its series; an unchanged row's bytes are
 * overwritten by the next row. The last values are kept as bytes too (one int64 pair of words per value, indexed by
 * series id), not as references to the previous cycle's bigints: at 290,000 series a cycle each value is read once,
 * and the garbage collector has no old bigints to trace.
 */
import type { SeriesBatch } from "./series-batch";

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
 * caller calls `remember` with its blobs once the write committed (a failed write is tried again).
 */
export class CycleChanges {
  private readonly size: number;
  /** Per id, 2 × width words: each value's low and high 32 bits as written. */
  private words = new Int32Array(0);
  /** Per id: 0 never written, else 1 + the null mask written (masks fit 8 bits: at most 8 value columns). */
  private masks = new Uint16Array(0);

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
   * int64 (a DataView would store it modulo 2^64).
   */
  encode(batch: SeriesBatch, ids: readonly number[]): CycleBlob[] {
    const { width, size, chunkSize } = this;
    const columns = batch.values;
    const order = listInIdOrder(ids);
    const count = order === null ? ids.length : order.length;
    const buf = Buffer.allocUnsafe(count * size + 4 * countChunks(ids, chunkSize));
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const words = this.words;
    const masks = this.masks;
    const blobs: CycleBlob[] = [];
    let pos = 0;
    let header = -1;
    let chunk = -1;
    let entries = 0;
    let lastId = -1;
    for (let k = 0; k < count; k++) {
      const row = order === null ? k : order[k]!;
      const id = ids[row]!;
      const c = Math.floor(id / chunkSize);
      // A row of a new chunk goes after the chunk's count; a row of the series just written is encoded after it and,
      // when it differs too, replaces its entry.
      const again = id === lastId;
      const at = c === chunk ? pos : pos + 4;
      view.setUint32(at, id, true);
      let mask = 0;
      let same = id < masks.length && masks[id]! !== 0;
      const w = 2 * width * id;
      for (let j = 0; j < width; j++) {
        const o = at + 5 + 8 * j;
        const v = columns[j]![row]!;
        let low: number;
        let high: number;
        if (typeof v === "number") {
          // A flow column's offset (NaN: none): its int64 words without a bigint, as setBigInt64 would write them.
          if (Number.isNaN(v)) {
            mask |= 1 << j;
            low = high = 0;
          } else {
            if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not an exact integer`);
            high = Math.floor(v / twoTo32);
            low = (v - high * twoTo32) | 0;
          }
          view.setInt32(o, low, true);
          view.setInt32(o + 4, high, true);
        } else if (v === null) {
          mask |= 1 << j;
          view.setInt32(o, 0, true);
          view.setInt32(o + 4, 0, true);
          continue;
        } else {
          if (v > maxInt64 || v < minInt64) throw new RangeError(`${v} is not an int64`);
          view.setBigInt64(o, v, true);
          if (!same) continue;
          low = view.getInt32(o, true);
          high = view.getInt32(o + 4, true);
        }
        if (same && (low !== words[w + 2 * j] || high !== words[w + 2 * j + 1])) same = false;
      }
      buf[at + 4] = mask;
      if (same && masks[id] === mask + 1) continue;
      if (again) {
        buf.copyWithin(pos - size, pos, pos + size);
        continue;
      }
      if (c !== chunk) {
        if (header >= 0) {
          view.setUint32(header, entries, true);
          blobs.push({ chunk, data: buf.subarray(header, pos) });
        }
        header = pos;
        chunk = c;
        entries = 0;
      }
      pos = at + size;
      entries++;
      lastId = id;
    }
    if (header >= 0) {
      view.setUint32(header, entries, true);
      blobs.push({ chunk, data: buf.subarray(header, pos) });
    }
    return blobs;
  }

  /** Remembers the values of a committed write's blobs (encode's). */
  remember(blobs: readonly CycleBlob[]): void {
    const { width, size } = this;
    for (const { data } of blobs) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const entries = view.getUint32(0, true);
      for (let e = 0; e < entries; e++) {
        const at = 4 + e * size;
        const id = view.getUint32(at, true);
        this.reserve(id);
        this.masks[id] = data[at + 4]! + 1;
        const w = 2 * width * id;
        for (let j = 0; j < 2 * width; j++) this.words[w + j] = view.getInt32(at + 5 + 4 * j, true);
      }
    }
  }

  /** Room for series `id` (ids are dense from 1: the arrays double as they grow). */
  private reserve(id: number): void {
    if (id < this.masks.length) return;
    const capacity = Math.max(1024, 2 * this.masks.length, id + 1);
    const masks = new Uint16Array(capacity);
    masks.set(this.masks);
    const words = new Int32Array(capacity * 2 * this.width);
    words.set(this.words);
    this.masks = masks;
    this.words = words;
  }
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

/** An upper bound of the chunks a write's blobs span: the chunks of all its rows. */
function countChunks(ids: readonly number[], chunkSize: number): number {
  const chunks = new Set<number>();
  for (const id of ids) chunks.add(Math.floor(id / chunkSize));
  return chunks.size;
}
