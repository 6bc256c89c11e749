/**
 * The values of one kind a column builder of the columnar encoder (columnar-codec.ts) takes, kept as they will be
 * written: numbers in a Float64Array, strings as indices into their distinct strings, booleans as bytes, each array
 * doubled when full. A column of a flow's or a translation's 100,000 rows used to be pushed into a JS array and then
 * read again value by value to be copied into its typed array (numbers) or looked up (strings, one Map lookup a row):
 * here each value is stored once where the column's bytes are taken from.
 */

/** Numbers, and whether every one is an int32 (−0 is not: int32 has no −0), as encodeColumn decides its type. */
export class NumberValues {
  private values: Float64Array = new Float64Array(16);
  length = 0;
  ints = true;

  add(value: number): void {
    if (this.length === this.values.length) this.values = growFloat64(this.values, this.length + 1);
    this.values[this.length++] = value;
    if (this.ints && !isInt32(value)) this.ints = false;
  }

  /** add of values[start], …, values[end − 1]. */
  addRun(values: ArrayLike<number>, start: number, end: number): void {
    const length = this.length + end - start;
    if (length > this.values.length) this.values = growFloat64(this.values, length);
    const target = this.values;
    let ints = this.ints;
    for (let i = start, at = this.length; i < end; i++, at++) {
      const v = values[i]!;
      target[at] = v;
      if (ints && !isInt32(v)) ints = false;
    }
    this.ints = ints;
    this.length = length;
  }

  /** add of `value`, `count` times. */
  repeat(value: number, count: number): void {
    const length = this.length + count;
    if (length > this.values.length) this.values = growFloat64(this.values, length);
    this.values.fill(value, this.length, length);
    if (!isInt32(value)) this.ints = false;
    this.length = length;
  }

  /** The numbers added, in order (a view: valid until the next add). */
  view(): Float64Array {
    return this.values.subarray(0, this.length);
  }
}

/**
 * Strings as indices into their distinct strings, numbered in the order they first appear. Rows alike repeat a string
 * (a flow's topic, a group's name), so the last string's index is kept and a repeat costs no Map lookup.
 */
export class StringValues {
  readonly distinct: string[] = [];
  private readonly ids = new Map<string, number>();
  private indices: Uint32Array = new Uint32Array(16);
  length = 0;
  private last: string | undefined = undefined;
  private lastId = 0;

  add(value: string): void {
    if (this.length === this.indices.length) this.indices = growUint32(this.indices, this.length + 1);
    this.indices[this.length++] = value === this.last ? this.lastId : this.identify(value);
  }

  /** add of values[start], …, values[end − 1] (in locals: a long column of distinct strings is this loop's). */
  addRun(values: ArrayLike<string>, start: number, end: number): void {
    this.reserve(this.length + end - start);
    const { indices, ids, distinct } = this;
    let at = this.length;
    let last = this.last;
    let lastId = this.lastId;
    for (let i = start; i < end; i++) {
      const value = values[i]!;
      if (value !== last) {
        let id = ids.get(value);
        if (id === undefined) {
          id = distinct.length;
          ids.set(value, id);
          distinct.push(value);
        }
        last = value;
        lastId = id;
      }
      indices[at++] = lastId;
    }
    this.length = at;
    this.last = last;
    this.lastId = lastId;
  }

  /** add of names[codes[i]] for i in [start, end): each name looked up once, when it first appears. */
  addCoded(names: readonly string[], codes: Uint8Array, start: number, end: number): void {
    this.reserve(this.length + end - start);
    const idOfCode = new Int32Array(names.length).fill(-1);
    for (let i = start; i < end; i++) {
      const code = codes[i]!;
      let id = idOfCode[code]!;
      if (id < 0) idOfCode[code] = id = this.identify(names[code]!);
      this.indices[this.length++] = id;
    }
  }

  /** add of `value`, `count` times. */
  repeat(value: string, count: number): void {
    this.reserve(this.length + count);
    this.indices.fill(this.identify(value), this.length, this.length + count);
    this.length += count;
  }

  /** Each string's index in `distinct`, in order (a view: valid until the next add). */
  view(): Uint32Array {
    return this.indices.subarray(0, this.length);
  }

  private identify(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.distinct.length;
      this.ids.set(value, id);
      this.distinct.push(value);
    }
    this.last = value;
    this.lastId = id;
    return id;
  }

  private reserve(length: number): void {
    if (length > this.indices.length) this.indices = growUint32(this.indices, length);
  }
}

/** Booleans as bytes, 1 for true. */
export class BooleanValues {
  private bytes: Uint8Array = new Uint8Array(16);
  length = 0;

  add(value: boolean): void {
    this.repeat(value, 1);
  }

  /** add of `value`, `count` times. */
  repeat(value: boolean, count: number): void {
    const length = this.length + count;
    if (length > this.bytes.length) this.bytes = growUint8(this.bytes, length);
    if (count === 1) this.bytes[this.length] = value ? 1 : 0;
    else this.bytes.fill(value ? 1 : 0, this.length, length);
    this.length = length;
  }

  /** The bytes, in order (a view: valid until the next add). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

function isInt32(v: number): boolean {
  return (v | 0) === v && !Object.is(v, -0);
}

/** The array copied into one of at least `length` elements (doubling, so appends cost amortized constant time). */
function growFloat64(array: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/** As growFloat64. */
function growUint32(array: Uint32Array, length: number): Uint32Array {
  const grown = new Uint32Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/** As growFloat64. */
export function growUint8(array: Uint8Array, length: number): Uint8Array {
  const grown = new Uint8Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}
