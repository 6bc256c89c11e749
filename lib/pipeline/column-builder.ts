/**
 * One property's column of an array of objects, built as the rows are read (columnar-codec.ts, encodeObjects): each
 * kind of value goes straight to a typed array of its own (numbers, offsets, string indices, booleans), where a plain
 * array of the values, scanned again to type them, cost most of a cycle's encoding at 100,000 partitions (millions of
 * values, and the garbage of arrays grown to millions of items). What it encodes is exactly what `encodeColumn` makes
 * of the same values in order (columnar-codec.test.ts compares them byte for byte).
 */
import { type BlobWriter, encodeColumn, encodeNode, type Kind, kindOf, type Node, writeIndices } from "./columnar-codec";

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;
const firstCapacity = 16;

/** A copy of `array` twice as long (its items kept): called when a part's array is full. */
function doubled<T extends Float64Array | BigInt64Array | Uint32Array | Uint8Array>(array: T): T {
  const grown = new (array.constructor as new (length: number) => T)(array.length * 2);
  // Of the same type as `array` (the compiler cannot tie `set`'s argument to T).
  grown.set(array as unknown as ArrayLike<number> & ArrayLike<bigint>);
  return grown;
}

/** The values of one kind in a column, in order. */
interface KindPart {
  add(value: unknown): void;
  /** What encodeColumn makes of these values alone. */
  encode(w: BlobWriter): Node;
}

/**
 * Each part counts its values and tracks whether every one is the first (Object.is; for bigints, strings and
 * booleans `===` is the same), which encodeColumn writes once ("Z").
 */
function writeSame(count: number, first: unknown, w: BlobWriter): Node {
  return ["Z", count, encodeNode(first, w)];
}

class NumberPart implements KindPart {
  private count = 0;
  private first = 0;
  private allSame = true;
  private ints = true;
  private values = new Float64Array(firstCapacity);

  add(value: unknown): void {
    const v = value as number;
    const at = this.count++;
    if (at === 0) this.first = v;
    else if (this.allSame && !Object.is(v, this.first)) this.allSame = false;
    if (at === this.values.length) this.values = doubled(this.values);
    this.values[at] = v;
    if (this.ints && ((v | 0) !== v || Object.is(v, -0))) this.ints = false;
  }

  encode(w: BlobWriter): Node {
    if (this.allSame) return writeSame(this.count, this.first, w);
    const values = this.values.subarray(0, this.count);
    return this.ints ? ["I", this.count, w.write("i32", new Int32Array(values))] : ["F", this.count, w.write("f64", values)];
  }
}

class BigintPart implements KindPart {
  private count = 0;
  private first = 0n;
  private allSame = true;
  private values = new BigInt64Array(firstCapacity);
  /** Every value, once one is beyond int64 (written one by one, as decimal text). */
  private beyond: bigint[] | null = null;

  add(value: unknown): void {
    const v = value as bigint;
    const at = this.count++;
    if (at === 0) this.first = v;
    else if (this.allSame && v !== this.first) this.allSame = false;
    if (this.beyond !== null) this.beyond.push(v);
    else if (v < minInt64 || v > maxInt64) {
      this.beyond = Array.from(this.values.subarray(0, at));
      this.beyond.push(v);
    } else {
      if (at === this.values.length) this.values = doubled(this.values);
      this.values[at] = v;
    }
  }

  encode(w: BlobWriter): Node {
    if (this.allSame) return writeSame(this.count, this.first, w);
    if (this.beyond !== null) return ["G", this.count, this.beyond.map((b) => encodeNode(b, w))];
    return ["B", this.count, w.write("i64", this.values.subarray(0, this.count))];
  }
}

class StringPart implements KindPart {
  private count = 0;
  private first = "";
  private allSame = true;
  private readonly ids = new Map<string, number>();
  private indices = new Uint32Array(firstCapacity);

  add(value: unknown): void {
    const s = value as string;
    const at = this.count++;
    if (at === 0) this.first = s;
    else if (this.allSame && s !== this.first) this.allSame = false;
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.ids.size));
    if (at === this.indices.length) this.indices = doubled(this.indices);
    this.indices[at] = id;
  }

  encode(w: BlobWriter): Node {
    if (this.allSame) return writeSame(this.count, this.first, w);
    return ["S", this.count, w.writeJson([...this.ids.keys()]), writeIndices(this.indices.subarray(0, this.count), this.ids.size, w)];
  }
}

class BooleanPart implements KindPart {
  private count = 0;
  private first = false;
  private allSame = true;
  private values = new Uint8Array(firstCapacity);

  add(value: unknown): void {
    const b = value as boolean;
    const at = this.count++;
    if (at === 0) this.first = b;
    else if (this.allSame && b !== this.first) this.allSame = false;
    if (at === this.values.length) this.values = doubled(this.values);
    this.values[at] = b ? 1 : 0;
  }

  encode(w: BlobWriter): Node {
    return this.allSame ? writeSame(this.count, this.first, w) : ["T", this.count, w.write("u8", this.values.subarray(0, this.count))];
  }
}

/** null or undefined: one value, written once. */
class ConstantPart implements KindPart {
  private count = 0;

  constructor(private readonly value: null | undefined) {}

  add(): void {
    this.count++;
  }

  encode(w: BlobWriter): Node {
    return writeSame(this.count, this.value, w);
  }
}

/** Objects, arrays and anything else: kept as they are, for encodeColumn (nested rows, arrays, values one by one). */
class ValuePart implements KindPart {
  private readonly values: unknown[] = [];

  add(value: unknown): void {
    this.values.push(value);
  }

  encode(w: BlobWriter): Node {
    return encodeColumn(this.values, w);
  }
}

function makePart(kind: Kind): KindPart {
  switch (kind) {
    case "number":
      return new NumberPart();
    case "bigint":
      return new BigintPart();
    case "string":
      return new StringPart();
    case "boolean":
      return new BooleanPart();
    case "null":
      return new ConstantPart(null);
    case "undefined":
      return new ConstantPart(undefined);
    default:
      return new ValuePart();
  }
}

/** A column of values of any kinds; of several kinds, a byte per row says which (encodeColumn's "X"). */
export class ColumnBuilder {
  private count = 0;
  private readonly kinds: Kind[] = [];
  private readonly parts: KindPart[] = [];
  /** Made when a second kind arrives (the rows before it are all of the first: kind 0). */
  private kindOfRow: Uint8Array | null = null;
  private lastKind: Kind | null = null;
  private last = 0;
  private part: KindPart | null = null;

  add(value: unknown): void {
    const kind = kindOf(value);
    if (kind !== this.lastKind) this.switchKind(kind);
    const at = this.count++;
    if (this.kindOfRow !== null) {
      if (at === this.kindOfRow.length) this.kindOfRow = doubled(this.kindOfRow);
      this.kindOfRow[at] = this.last;
    }
    this.part!.add(value);
  }

  encode(w: BlobWriter): Node {
    if (this.kindOfRow === null) return this.parts[0]!.encode(w);
    const kinds = w.write("u8", this.kindOfRow.subarray(0, this.count));
    return ["X", this.count, kinds, this.parts.map((part) => part.encode(w))];
  }

  private switchKind(kind: Kind): void {
    let k = this.kinds.indexOf(kind);
    if (k < 0) {
      k = this.kinds.push(kind) - 1;
      this.parts.push(makePart(kind));
      if (k === 1) this.kindOfRow = new Uint8Array(Math.max(firstCapacity, 2 * this.count));
    }
    this.lastKind = kind;
    this.last = k;
    this.part = this.parts[k]!;
  }
}
