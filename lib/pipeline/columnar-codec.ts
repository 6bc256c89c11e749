/**
 * The published read model as columns (a collector publishes it, web instances decode it: published-read-models.ts).
 * At 100,000 partitions a model holds millions of values in a few long arrays of objects alike (a flow's partitions,
 * a cluster's partition states, a translation's group rows, the offset syncs); as JSON a web instance parsed and
 * rebuilt all of them every cycle (seconds), although a page reads a few. Here:
 *
 * - a long array is written as columns, one per property of its objects (numbers as float64 or int32, bigints as
 *   int64, strings as indices into the column's distinct strings, booleans as bytes, a value shared by every row once,
 *   a column of mixed types as a byte of kind per row and one column per kind), nested arrays and objects the same way;
 * - the columns' bytes are one binary blob after one JSON header, the whole as bytes (the store keeps bytes, so a web
 *   instance reads each column's typed array straight from them);
 * - decoding builds the small parts at once and leaves every long array, Map or Set (more than `lazyAbove` items) as a
 *   property that decodes itself when first read (and is then a plain property), so a web instance has a new model in
 *   milliseconds and a page pays only for the arrays it reads, once per model.
 *
 * Generic over what it encodes: any tree of plain objects, arrays, Maps, Sets, typed arrays, strings, numbers (NaN,
 * infinities and −0 included), bigints, booleans, null and undefined decodes to an equal tree (an object property
 * whose value is undefined is left out, as JSON does; bigints beyond int64 go as decimal text). Rows are built by a
 * function compiled once per set of property names (an object literal), tens of times faster than assigning
 * properties one by one.
 *
 * A long part held as columns (the collector's offset syncs, a translation's rows) hands them over (columnar-source.ts)
 * and is written from them, the same bytes as the value they stand for, without the objects being made.
 */
import {
  type ColumnarRows, type ColumnBlockSink, type ColumnInput, type DistinctStrings, encodeAsColumns,
  isColumnarRows, isColumnarSource,
} from "./columnar-source";
import { BooleanValues, growUint8, NumberValues, StringValues } from "./column-accumulators";

/** A value in the header: a JSON primitive stands for itself, a JSON object for a plain object, an array is tagged. */
type Node = null | boolean | number | string | { [key: string]: Node } | Node[];
/** A run of the blob: [element type, byte offset, element count]. */
type Segment = [ElementType, number, number];
type ElementType = "f64" | "i32" | "i64" | "u32" | "u16" | "u8" | "i8" | "i16" | "u64" | "f32";
/** Where a run of the blob's bytes starts, and how long it is. */
type Run = [offset: number, length: number];

/**
 * The first line of a body. Version 2 is the bytes form (the blob as it is); version 1, the previous text form (the
 * blob as base64, the store's column was text), is still decoded: a web instance may meet a row an older collector
 * wrote (docs/read-model-format.md, "Upgrading"). The magic tells them apart, as both can reach a web instance as
 * bytes (PostgreSQL keeps either, gzip-compressed, in one column).
 */
const magic = "gapwatch-columnar 2";
const textMagic = "gapwatch-columnar 1";
/** Arrays, Maps and Sets longer than this decode when first read; shorter ones at once. */
const lazyAbove = 64;
/** Arrays this short are written value by value in the header (columns of a few values cost more than they save). */
const inlineUpTo = 8;
/** Runs of the blob, and the blob itself in the body, start at multiples of 8 bytes: aligned for any typed array. */
const runAlign = 8;

const arrayTypes = {
  f64: Float64Array, i32: Int32Array, i64: BigInt64Array, u32: Uint32Array, u16: Uint16Array, u8: Uint8Array,
  i8: Int8Array, i16: Int16Array, u64: BigUint64Array, f32: Float32Array,
} as const;
type AnyTypedArray =
  | Float64Array | Int32Array | BigInt64Array | Uint32Array | Uint16Array | Uint8Array | Int8Array | Int16Array
  | BigUint64Array | Float32Array;

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;

/**
 * Encodes `value` (see above) as the bytes a web instance decodes with decodeColumnar: the magic and the JSON header
 * as lines of UTF-8, zero bytes up to a multiple of 8, the blob.
 */
export function encodeColumnar(value: unknown): Buffer {
  return Buffer.concat(encodeColumnarPieces(value));
}

/**
 * encodeColumnar's bytes as the pieces they are made of, in order (views of the columns, not copies): a store that
 * writes them in pieces never holds the body whole (85 MiB at 100,000 partitions). Read before anything changes the
 * encoded value: a piece may be a view of a typed array it holds.
 */
export function encodeColumnarPieces(value: unknown): Buffer[] {
  const writer = new BlobWriter();
  const header = JSON.stringify(encodeNode(value, writer));
  return writer.finish(Buffer.from(`${magic}\n${header}\n`));
}

/** Whether `body` was written by encodeColumnar, as bytes (this version) or as text (the previous one). */
export function isColumnar(body: Buffer): boolean {
  return startsWithLine(body, magic) || startsWithLine(body, textMagic);
}

/** Decodes a body written by encodeColumnar, of either form; long arrays, Maps and Sets decode when first read. */
export function decodeColumnar(body: Buffer): unknown {
  const first = body.indexOf(0x0a);
  const second = body.indexOf(0x0a, first + 1);
  const bytesForm = startsWithLine(body, magic);
  if (first < 0 || second < 0 || (!bytesForm && !startsWithLine(body, textMagic))) {
    throw new Error(`not a columnar read model (it should start with "${magic}"): written by another version of Gapwatch`);
  }
  const header = JSON.parse(body.toString("utf8", first + 1, second)) as Node;
  const runs = bytesForm ? bytesRuns(body, alignUp(second + 1, runAlign)) : textRuns(body, second + 1);
  return new Decoder(runs).node(header);
}

function startsWithLine(body: Buffer, line: string): boolean {
  return body.length > line.length && body[line.length] === 0x0a && body.toString("latin1", 0, line.length) === line;
}

function alignUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

/** The bytes of one run of the blob: its offset and length in the blob. */
type RunReader = (offset: number, length: number) => Buffer;

/** Runs of the bytes form: views of the body, where the body's memory is 8-byte aligned (an unpooled Buffer is). */
function bytesRuns(body: Buffer, start: number): RunReader {
  return (offset, length) => aligned(body.subarray(start + offset, start + offset + length));
}

/**
 * Runs of the text form (`body` holds the blob's base64 from `start` on), each decoded from its base64 alone: that
 * form's runs start at multiples of 24 bytes, a whole number of base64 groups (3 bytes, 4 characters).
 */
function textRuns(body: Buffer, start: number): RunReader {
  return (offset, length) => {
    const from = start + (offset / 3) * 4;
    const base64 = body.toString("latin1", from, from + Math.ceil(length / 3) * 4);
    return aligned(Buffer.from(base64, "base64").subarray(0, length));
  };
}

/**
 * `bytes`, copied to a Buffer of its own if it does not start at a multiple of 8: typed arrays need their element
 * size's alignment, and a small Buffer may sit anywhere in Node's shared pool (a Buffer.from copy too), where an
 * unpooled one starts at its own ArrayBuffer's start.
 */
function aligned(bytes: Buffer): Buffer {
  if (bytes.byteOffset % 8 === 0) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

// ---------------------------------------------------------------------------------------------------------- encoding

class BlobWriter {
  private readonly parts: Buffer[] = [];
  private length = 0;

  /** Appends the array's bytes as a run of their own, and returns where they are. */
  write(type: ElementType, array: AnyTypedArray): Segment {
    const [offset] = this.append(Buffer.from(array.buffer, array.byteOffset, array.byteLength));
    return [type, offset, array.length];
  }

  /** Appends a JSON value's text (UTF-8) as a run of its own. */
  writeJson(value: unknown): Run {
    return this.append(Buffer.from(JSON.stringify(value)));
  }

  /** Appends bytes as a run of their own. */
  writeBytes(bytes: Buffer): Run {
    return this.append(bytes);
  }

  private append(bytes: Buffer): Run {
    const offset = this.length;
    const padded = Math.ceil(bytes.length / runAlign) * runAlign;
    this.parts.push(bytes);
    if (padded > bytes.length) this.parts.push(Buffer.alloc(padded - bytes.length));
    this.length += padded;
    return [offset, bytes.length];
  }

  /** The pieces of `head` (the magic and the header), zero bytes up to a multiple of runAlign, then the blob. */
  finish(head: Buffer): Buffer[] {
    return [head, Buffer.alloc(alignUp(head.length, runAlign) - head.length), ...this.parts];
  }
}

function encodeNode(value: unknown, w: BlobWriter): Node {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? value : ["n", Object.is(value, -0) ? "-0" : String(value)];
    case "bigint":
      return ["b", value.toString()];
    case "undefined":
      return ["u"];
    case "object":
      if (value === null) return null;
      if (isColumnarSource(value)) {
        const map = value[encodeAsColumns]();
        return ["m", encodeInput(map.keys, w), encodeInput(map.values, w)];
      }
      if (Array.isArray(value)) {
        return value.length <= inlineUpTo ? ["a", ...value.map((v) => encodeNode(v, w))] : ["c", encodeColumn(value, w)];
      }
      if (value instanceof Map) return ["m", encodeColumn([...value.keys()], w), encodeColumn([...value.values()], w)];
      if (value instanceof Set) return ["s", encodeColumn([...value], w)];
      if (ArrayBuffer.isView(value)) return ["t", w.write(typeOfArray(value), value as AnyTypedArray)];
      if (isPlainObject(value)) {
        const out: { [key: string]: Node } = {};
        for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, encodeNode(v, w));
        return out;
      }
      if (isColumnarRows(value)) {
        if (value.length <= inlineUpTo) return encodeNode(value.listRows(), w);
        const column = new ColumnBuilder();
        value.writeRows(column);
        return ["c", column.finish(w)];
      }
      throw new Error(`cannot encode a ${value.constructor?.name ?? "object"} in a read model`);
    default:
      throw new Error(`cannot encode a ${typeof value} in a read model`);
  }
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function typeOfArray(view: ArrayBufferView): ElementType {
  for (const [type, ctor] of Object.entries(arrayTypes)) if (view instanceof ctor) return type as ElementType;
  throw new Error(`cannot encode a ${view.constructor.name} in a read model`);
}

type Kind = "number" | "bigint" | "string" | "boolean" | "null" | "undefined" | "object" | "array" | "other";

function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case "number":
    case "bigint":
    case "string":
    case "boolean":
    case "undefined":
      return typeof v as Kind;
    case "object":
      if (v === null) return "null";
      if (Array.isArray(v)) return "array";
      if (isPlainObject(v)) return "object";
      return isColumnarRows(v) ? "array" : "other";
    default:
      return "other";
  }
}

/** A column of values: [type, count, ...] (see the file's comment). */
function encodeColumn(values: readonly unknown[], w: BlobWriter): Node {
  const n = values.length;
  // One pass: the kind of the first value, whether all share it, and whether all are that very value.
  const kind = n === 0 ? "null" : kindOf(values[0]);
  let sameValue = true;
  for (let i = 1; i < n; i++) {
    const v = values[i];
    if (sameValue && Object.is(v, values[0])) continue;
    sameValue = false;
    if (kindOf(v) !== kind) return encodeMixed(values, w);
  }
  if (n > 0 && sameValue && kind !== "object" && kind !== "array" && kind !== "other") return ["Z", n, encodeNode(values[0], w)];
  switch (kind) {
    case "number": {
      const array = new Float64Array(n);
      let ints = true;
      for (let i = 0; i < n; i++) {
        const v = values[i] as number;
        array[i] = v;
        if (ints && ((v | 0) !== v || Object.is(v, -0))) ints = false;
      }
      return ints ? ["I", n, w.write("i32", new Int32Array(array))] : ["F", n, w.write("f64", array)];
    }
    case "bigint": {
      const all = values as bigint[];
      const array = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const v = all[i]!;
        if (v < minInt64 || v > maxInt64) return ["G", n, all.map((b) => encodeNode(b, w))];
        array[i] = v;
      }
      return ["B", n, w.write("i64", array)];
    }
    case "string":
      return encodeStrings(values as string[], w);
    case "boolean": {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = values[i] ? 1 : 0;
      return ["T", n, w.write("u8", bytes)];
    }
    case "object":
      return encodeObjects(values as Record<string, unknown>[], w);
    case "array":
      return encodeArrays(values as (readonly unknown[] | ColumnarRows)[], w);
    case "null":
    case "undefined":
      return ["Z", n, encodeNode(values[0], w)];
    default:
      return ["G", n, values.map((v) => encodeNode(v, w))];
  }
}

/** Arrays: their lengths, then their items as one column (rows held as columns written from them). */
function encodeArrays(arrays: readonly (readonly unknown[] | ColumnarRows)[], w: BlobWriter): Node {
  const lengths = new Uint32Array(arrays.length);
  let plain = true;
  for (let i = 0; i < arrays.length; i++) {
    const a = arrays[i]!;
    lengths[i] = a.length;
    if (plain && !Array.isArray(a)) plain = false;
  }
  const segment = w.write("u32", lengths);
  // Loops, not `flat` nor `Uint32Array.from(arrays, f)`: both take V8's generic paths, which over a cluster's 100,000
  // partition states (18,000 arrays of them, then each state's replica lists) cost about a third of its encoding.
  if (plain) return ["A", arrays.length, segment, encodeColumn(concatArrays(arrays as readonly (readonly unknown[])[]), w)];
  const items = new ColumnBuilder();
  writeItems(arrays, items);
  return ["A", arrays.length, segment, items.finish(w)];
}

/** The items of `arrays` into `items`, in order: consecutive rows held as columns alike written as one (writeRowsOf). */
function writeItems(arrays: readonly (readonly unknown[] | ColumnarRows)[], items: ColumnBuilder): void {
  for (let i = 0; i < arrays.length; ) {
    const a = arrays[i]!;
    if (Array.isArray(a)) {
      for (const item of a as readonly unknown[]) items.value(item);
      i++;
      continue;
    }
    const rows = a as ColumnarRows;
    const writeRowsOf = rows.writeRowsOf;
    if (writeRowsOf === undefined) {
      rows.writeRows(items);
      i++;
      continue;
    }
    let end = i + 1;
    while (end < arrays.length && (arrays[end] as Partial<ColumnarRows>).writeRowsOf === writeRowsOf) end++;
    writeRowsOf.call(rows, arrays.slice(i, end) as ColumnarRows[], items);
    i = end;
  }
}

/** The items of `arrays`, one array after the other. */
function concatArrays(arrays: readonly (readonly unknown[])[]): unknown[] {
  const items: unknown[] = [];
  for (let i = 0; i < arrays.length; i++) {
    const a = arrays[i]!;
    for (let j = 0; j < a.length; j++) items.push(a[j]);
  }
  return items;
}

/** A column handed over as columns: the node and runs encodeColumn writes for the values it stands for. */
function encodeInput(input: ColumnInput, w: BlobWriter): Node {
  switch (input.kind) {
    case "values":
      return encodeColumn(input.values, w);
    case "int64":
      return encodeInt64(input.values, w);
    case "objects": {
      if (input.length === 0) return encodeColumn([], w);
      // One shape: encodeObjects writes no shape per row, and the columns in the shape's order.
      const encoded: { [key: string]: Node } = {};
      input.keys.forEach((k, j) => setOwn(encoded, k, encodeInput(input.columns[j]!, w)));
      return ["O", input.length, [[...input.keys]], null, encoded];
    }
    case "arrays":
      if (input.lengths.length === 0) return encodeColumn([], w);
      return ["A", input.lengths.length, w.write("u32", input.lengths), encodeInput(input.items, w)];
    case "distinct strings":
      return encodeDistinctStrings(input, w);
  }
}

/**
 * Strings no two alike as encodeStrings writes them (their JSON text, then each one's index: its own place), the text
 * made once by the part that keeps them. One string or none is a column of one value, as encodeColumn writes it.
 */
function encodeDistinctStrings(input: DistinctStrings, w: BlobWriter): Node {
  const n = input.values.length;
  if (n <= 1) return encodeColumn(input.values, w);
  const indices = new Uint32Array(n);
  for (let i = 0; i < n; i++) indices[i] = i;
  return ["S", n, w.writeBytes(input.json), writeIndices(indices, n, w)];
}

/** Whether this machine stores an int64 as its low 32 bits first (typed arrays use the machine's byte order). */
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Exact integers as the column of bigints they stand for (written as encodeColumn writes bigints). */
function encodeInt64(values: Float64Array, w: BlobWriter): Node {
  const n = values.length;
  if (n === 0) return encodeColumn([], w);
  const first = values[0]!;
  let same = true;
  for (let i = 1; i < n && same; i++) same = values[i] === first;
  if (same) return ["Z", n, encodeNode(BigInt(first), w)];
  const array = new BigInt64Array(n);
  if (littleEndian) {
    // Two 32-bit words per value instead of a BigInt each (a million syncs are two million BigInts).
    const words = new Uint32Array(array.buffer);
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      const high = Math.floor(v / 0x1_0000_0000);
      words[2 * i] = v - high * 0x1_0000_0000;
      words[2 * i + 1] = high;
    }
  } else {
    for (let i = 0; i < n; i++) array[i] = BigInt(values[i]!);
  }
  return ["B", n, w.write("i64", array)];
}

function encodeStrings(values: readonly string[], w: BlobWriter): Node {
  const ids = new Map<string, number>();
  const indices = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const s = values[i]!;
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = ids.size));
    indices[i] = id;
  }
  return ["S", values.length, w.writeJson([...ids.keys()]), writeIndices(indices, ids.size, w)];
}

/** Indices below `bound` in the narrowest unsigned type (a typed array's constructor converts a typed array natively). */
function writeIndices(indices: Uint32Array, bound: number, w: BlobWriter): Segment {
  if (bound <= 0x100) return w.write("u8", new Uint8Array(indices));
  if (bound <= 0x10000) return w.write("u16", new Uint16Array(indices));
  return w.write("u32", indices);
}

/** Objects: their sets of property names in order (shapes), which shape each row has, one column per property. */
function encodeObjects(rows: readonly Record<string, unknown>[], w: BlobWriter): Node {
  const shapeIds = new Map<string, number>();
  const shapes: string[][] = [];
  /** Per shape, the column of each of its keys, in its order (rows of one shape append without a lookup a value). */
  const shapeColumns: unknown[][][] = [];
  const shapeOf = new Uint32Array(rows.length);
  const columns = new Map<string, unknown[]>();
  let previousKeys: string[] | null = null;
  let previousId = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let keys = Object.keys(row);
    for (const k of keys) {
      if (row[k] === undefined) {
        keys = keys.filter((key) => row[key] !== undefined);
        break;
      }
    }
    let id = previousId;
    if (previousKeys === null || !sameKeys(keys, previousKeys)) {
      const name = keys.join("\u0000");
      const known = shapeIds.get(name);
      if (known === undefined) {
        shapeIds.set(name, (id = shapes.length));
        shapes.push(keys);
        shapeColumns.push(keys.map((k) => {
          let column = columns.get(k);
          if (!column) columns.set(k, (column = []));
          return column;
        }));
      } else id = known;
    }
    shapeOf[i] = id;
    previousKeys = keys;
    previousId = id;
    const target = shapeColumns[id]!;
    for (let j = 0; j < keys.length; j++) target[j]!.push(row[keys[j]!]);
  }
  const encoded: { [key: string]: Node } = {};
  for (const [k, column] of columns) setOwn(encoded, k, encodeColumn(column, w));
  return ["O", rows.length, shapes, shapes.length > 1 ? writeIndices(shapeOf, shapes.length, w) : null, encoded];
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Values of several kinds: a byte per row saying which, and the values of each kind as a column of their own. */
function encodeMixed(values: readonly unknown[], w: BlobWriter): Node {
  const order: Kind[] = [];
  const byKind: unknown[][] = [];
  const kindOfRow = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const kind = kindOf(values[i]);
    let k = order.indexOf(kind);
    if (k < 0) {
      k = order.push(kind) - 1;
      byKind.push([]);
    }
    kindOfRow[i] = k;
    byKind[k]!.push(values[i]);
  }
  return ["X", values.length, w.write("u8", kindOfRow), byKind.map((column) => encodeColumn(column, w))];
}

/**
 * A column filled value by value, or a run of values at a time (rows written from their columns, ColumnBlockSink),
 * that encodes as encodeColumn encodes the array of those values: the values of each kind (in the order kinds first
 * appear) kept apart, a byte of kind per value, objects split into their own columns as they come (ObjectColumns),
 * bigints held as numbers while they are exact. A run's values are appended as the same values one by one would be,
 * so the bytes do not depend on how the values came.
 */
class ColumnBuilder implements ColumnBlockSink {
  private length = 0;
  private readonly kinds: Kind[] = [];
  private readonly parts: Part[] = [];
  private kindOfRow: Uint8Array = new Uint8Array(16);
  /** The index of the kind entered last: a column's values are mostly of one kind, found without a search. */
  private lastKind = -1;

  value(value: unknown): void {
    const kind = kindOf(value);
    const part = this.enter(kind);
    switch (kind) {
      case "number":
        (part as NumbersPart).add(value as number);
        return;
      case "string":
        (part as StringsPart).add(value as string);
        return;
      case "boolean":
        (part as BooleansPart).add(value as boolean);
        return;
      case "null":
      case "undefined":
        (part as RepeatedPart).length++;
        return;
      case "object":
        (part as ObjectColumns).add(value as Record<string, unknown>);
        return;
      case "bigint":
        (part as Int64Part).addBigint(value as bigint);
        return;
      case "array":
        (part as ArraysPart).add(value as readonly unknown[] | ColumnarRows);
        return;
      default:
        (part as ValuesPart).values.push(value);
    }
  }

  int64(value: number): void {
    (this.enter("bigint") as Int64Part).addNumber(value);
  }

  object(shape: readonly string[]): readonly ColumnBlockSink[] {
    return (this.enter("object") as ObjectColumns).begin(shape);
  }

  int64s(values: Float64Array, start: number, end: number): void {
    if (end > start) (this.enterRun("bigint", end - start) as Int64Part).addNumbers(values, start, end);
  }

  nullableInt64s(values: Float64Array, start: number, end: number): void {
    for (let i = start; i < end; ) {
      const isNull = Number.isNaN(values[i]!);
      let j = i + 1;
      while (j < end && Number.isNaN(values[j]!) === isNull) j++;
      if (isNull) this.repeatNull(j - i);
      else (this.enterRun("bigint", j - i) as Int64Part).addNumbers(values, i, j);
      i = j;
    }
  }

  primitives(values: ArrayLike<string> | ArrayLike<number>, start: number, end: number): void {
    if (end <= start) return;
    const kind = kindOf(values[start]);
    const part = this.enterRun(kind, end - start);
    if (kind === "string") (part as StringsPart).addRun(values as ArrayLike<string>, start, end);
    else (part as NumbersPart).addRun(values as ArrayLike<number>, start, end);
  }

  strings(names: readonly string[], codes: Uint8Array, start: number, end: number): void {
    if (end > start) (this.enterRun("string", end - start) as StringsPart).addCoded(names, codes, start, end);
  }

  repeat(value: string | number | boolean | null, count: number): void {
    if (count <= 0) return;
    if (value === null) {
      this.repeatNull(count);
      return;
    }
    const part = this.enterRun(kindOf(value), count);
    if (typeof value === "string") (part as StringsPart).repeat(value, count);
    else if (typeof value === "number") (part as NumbersPart).repeat(value, count);
    else (part as BooleansPart).repeat(value, count);
  }

  arrays(lengths: Uint32Array, start: number, end: number): ColumnBlockSink {
    if (end <= start) return new ColumnBuilder();
    return (this.enterRun("array", end - start) as ArraysPart).addLengths(lengths, start, end);
  }

  objects(
    shapes: readonly (readonly string[])[],
    shapeOf: Uint8Array,
    start: number,
    end: number,
  ): readonly ColumnBlockSink[] {
    for (let i = start; i < end; ) {
      const s = shapeOf[i]!;
      let j = i + 1;
      while (j < end && shapeOf[j] === s) j++;
      const shape = shapes[s];
      if (shape === undefined) this.repeatNull(j - i);
      else (this.enterRun("object", j - i) as ObjectColumns).beginRun(shape, j - i);
      i = j;
    }
    const k = this.kinds.indexOf("object");
    const objects = k < 0 ? null : (this.parts[k] as ObjectColumns);
    // A name no object has had takes no value: a column of its own, never encoded.
    return listShapeKeys(shapes).map((key) => objects?.columnOf(key) ?? new ColumnBuilder());
  }

  finish(w: BlobWriter): Node {
    if (this.length === 0) return encodeColumn([], w);
    if (this.parts.length === 1) return this.parts[0]!.finish(w);
    const kinds = w.write("u8", this.kindOfRow.subarray(0, this.length));
    return ["X", this.length, kinds, this.parts.map((part) => part.finish(w))];
  }

  private repeatNull(count: number): void {
    (this.enterRun("null", count) as RepeatedPart).length += count;
  }

  /** The part of `kind` (made when it first appears), the value's kind noted. */
  private enter(kind: Kind): Part {
    return this.enterRun(kind, 1);
  }

  /** enter for `count` (> 0) values of `kind` in a row. */
  private enterRun(kind: Kind, count: number): Part {
    let k = this.lastKind;
    if (k < 0 || this.kinds[k] !== kind) {
      k = this.kinds.indexOf(kind);
      if (k < 0) {
        k = this.kinds.push(kind) - 1;
        this.parts.push(makePart(kind));
      }
      this.lastKind = k;
    }
    const end = this.length + count;
    if (end > this.kindOfRow.length) this.kindOfRow = growUint8(this.kindOfRow, end);
    if (count === 1) this.kindOfRow[this.length] = k;
    else this.kindOfRow.fill(k, this.length, end);
    this.length = end;
    return this.parts[k]!;
  }
}

/** The property names of `shapes`, in the order they first appear (ColumnBlockSink.objects' sinks). */
function listShapeKeys(shapes: readonly (readonly string[])[]): string[] {
  const keys: string[] = [];
  for (const shape of shapes) for (const key of shape) if (!keys.includes(key)) keys.push(key);
  return keys;
}

/** The values of one kind a ColumnBuilder keeps apart. */
type Part = ValuesPart | NumbersPart | StringsPart | BooleansPart | RepeatedPart | Int64Part | ObjectColumns | ArraysPart;

function makePart(kind: Kind): Part {
  switch (kind) {
    case "object":
      return new ObjectColumns();
    case "bigint":
      return new Int64Part();
    case "number":
      return new NumbersPart();
    case "string":
      return new StringsPart();
    case "boolean":
      return new BooleansPart();
    case "null":
      return new RepeatedPart(null);
    case "undefined":
      return new RepeatedPart(undefined);
    case "array":
      return new ArraysPart();
    default:
      return new ValuesPart();
  }
}

/**
 * Arrays, encoded as encodeArrays does: their lengths, then their items as one column, each item entered as it comes
 * (an array given, or a run of arrays whose lengths are given and whose items are written into `addLengths`' sink) —
 * a cluster's 300,000 replica lists need not be made. Rows held as columns wait for the next ones (writeRowsOf).
 */
class ArraysPart {
  private lengths = new Uint32Array(16);
  private length = 0;
  private readonly items = new ColumnBuilder();
  private readonly waiting: ColumnarRows[] = [];

  add(array: readonly unknown[] | ColumnarRows): void {
    this.reserve(this.length + 1);
    this.lengths[this.length++] = array.length;
    if (Array.isArray(array)) {
      this.writeWaiting();
      for (const item of array as readonly unknown[]) this.items.value(item);
    } else this.waiting.push(array as ColumnarRows);
  }

  /** Arrays of lengths[start], …, lengths[end − 1]: the sink their items are then written into, all in order. */
  addLengths(lengths: Uint32Array, start: number, end: number): ColumnBuilder {
    this.writeWaiting();
    this.reserve(this.length + end - start);
    this.lengths.set(lengths.subarray(start, end), this.length);
    this.length += end - start;
    return this.items;
  }

  finish(w: BlobWriter): Node {
    this.writeWaiting();
    return ["A", this.length, w.write("u32", this.lengths.subarray(0, this.length)), this.items.finish(w)];
  }

  private writeWaiting(): void {
    if (this.waiting.length === 0) return;
    writeItems(this.waiting, this.items);
    this.waiting.length = 0;
  }

  private reserve(length: number): void {
    if (length <= this.lengths.length) return;
    const grown = new Uint32Array(Math.max(length, this.lengths.length * 2));
    grown.set(this.lengths.subarray(0, this.length));
    this.lengths = grown;
  }
}

/** Values of a kind kept as they come (what no other part takes), encoded as encodeColumn does. */
class ValuesPart {
  readonly values: unknown[] = [];

  finish(w: BlobWriter): Node {
    return encodeColumn(this.values, w);
  }
}

/** Numbers, encoded as encodeColumn does: one value, or int32 where every one is, else float64. */
class NumbersPart extends NumberValues {
  finish(w: BlobWriter): Node {
    const values = this.view();
    const n = values.length;
    const first = values[0]!;
    let i = 1;
    while (i < n && Object.is(values[i], first)) i++;
    if (i === n) return ["Z", n, encodeNode(first, w)];
    return this.ints ? ["I", n, w.write("i32", new Int32Array(values))] : ["F", n, w.write("f64", values)];
  }
}

/** Strings, encoded as encodeColumn does: one value, or the distinct strings' JSON and each one's index. */
class StringsPart extends StringValues {
  finish(w: BlobWriter): Node {
    const distinct = this.distinct;
    if (distinct.length === 1) return ["Z", this.length, distinct[0]!];
    return ["S", this.length, w.writeJson(distinct), writeIndices(this.view(), distinct.length, w)];
  }
}

/** Booleans, encoded as encodeColumn does: one value, or a byte each. */
class BooleansPart extends BooleanValues {
  finish(w: BlobWriter): Node {
    const bytes = this.view();
    const first = bytes[0]!;
    let i = 1;
    while (i < bytes.length && bytes[i] === first) i++;
    return i === bytes.length ? ["Z", bytes.length, first === 1] : ["T", bytes.length, w.write("u8", bytes)];
  }
}

/** null or undefined, `length` times. */
class RepeatedPart {
  length = 0;

  constructor(private readonly value: null | undefined) {}

  finish(w: BlobWriter): Node {
    return ["Z", this.length, encodeNode(this.value, w)];
  }
}

/** bigints: as numbers while every one is exact (|b| ≤ 2^53 − 1), else as bigints. */
class Int64Part {
  private numbers = new Float64Array(16);
  private length = 0;
  private bigints: bigint[] | null = null;

  addBigint(value: bigint): void {
    const number = Number(value);
    if (this.bigints === null && Number.isSafeInteger(number)) this.addNumber(number);
    else (this.bigints ??= Array.from(this.numbers.subarray(0, this.length), BigInt)).push(value);
  }

  addNumber(value: number): void {
    if (this.bigints !== null) {
      this.bigints.push(BigInt(value));
      return;
    }
    if (this.length === this.numbers.length) this.grow(this.length + 1);
    this.numbers[this.length++] = value;
  }

  /** addNumber of values[start], …, values[end − 1]. */
  addNumbers(values: Float64Array, start: number, end: number): void {
    if (this.bigints !== null) {
      for (let i = start; i < end; i++) this.bigints.push(BigInt(values[i]!));
      return;
    }
    const length = this.length + end - start;
    if (length > this.numbers.length) this.grow(length);
    this.numbers.set(values.subarray(start, end), this.length);
    this.length = length;
  }

  finish(w: BlobWriter): Node {
    return this.bigints === null ? encodeInt64(this.numbers.subarray(0, this.length), w) : encodeColumn(this.bigints, w);
  }

  /** Room for at least `length` numbers (doubling, so appends cost amortized constant time). */
  private grow(length: number): void {
    const grown = new Float64Array(Math.max(length, this.numbers.length * 2));
    grown.set(this.numbers.subarray(0, this.length));
    this.numbers = grown;
  }
}

/** Objects, as encodeObjects splits them: shapes in the order they first appear, one ColumnBuilder per property. */
class ObjectColumns {
  private length = 0;
  private readonly shapes: string[][] = [];
  private readonly shapeIds = new Map<string, number>();
  /** The shapes `begin` was given, by identity (a row written from columns names its shape by one array). */
  private readonly givenShapes = new Map<readonly string[], number>();
  private readonly shapeColumns: ColumnBuilder[][] = [];
  private readonly columns = new Map<string, ColumnBuilder>();
  private shapeOf = new Uint32Array(16);
  /** The property names of the last object `add` took, and their shape. */
  private previousKeys: readonly string[] | null = null;
  private previousId = 0;

  /** An object written property by property: its columns, in the shape's order. */
  begin(shape: readonly string[]): readonly ColumnBuilder[] {
    return this.beginRun(shape, 1);
  }

  /** `count` objects of `shape` written a column at a time: their columns, in the shape's order. */
  beginRun(shape: readonly string[], count: number): readonly ColumnBuilder[] {
    let id = this.givenShapes.get(shape);
    if (id === undefined) this.givenShapes.set(shape, (id = this.identify(shape)));
    return this.enter(id, count);
  }

  /** The column of property `key`, if a shape has it. */
  columnOf(key: string): ColumnBuilder | undefined {
    return this.columns.get(key);
  }

  /** An object: its properties whose value is not undefined, in its order. */
  add(row: Record<string, unknown>): void {
    let keys = Object.keys(row);
    for (let j = 0; j < keys.length; j++) {
      if (row[keys[j]!] === undefined) {
        keys = keys.filter((k) => row[k] !== undefined);
        break;
      }
    }
    // Rows alike come in runs: the previous row's shape is found by comparing names, not by joining and looking up.
    if (this.previousKeys === null || !sameKeys(keys, this.previousKeys)) {
      this.previousId = this.identify(keys);
      this.previousKeys = keys;
    }
    const columns = this.enter(this.previousId);
    for (let j = 0; j < keys.length; j++) columns[j]!.value(row[keys[j]!]);
  }

  finish(w: BlobWriter): Node {
    const encoded: { [key: string]: Node } = {};
    for (const [k, column] of this.columns) setOwn(encoded, k, column.finish(w));
    const shapes = this.shapes.length;
    const shapeOf = shapes > 1 ? writeIndices(this.shapeOf.subarray(0, this.length), shapes, w) : null;
    return ["O", this.length, this.shapes, shapeOf, encoded];
  }

  private identify(keys: readonly string[]): number {
    const name = keys.join("\u0000");
    const known = this.shapeIds.get(name);
    if (known !== undefined) return known;
    const id = this.shapes.length;
    this.shapeIds.set(name, id);
    this.shapes.push([...keys]);
    this.shapeColumns.push(keys.map((k) => {
      let column = this.columns.get(k);
      if (!column) this.columns.set(k, (column = new ColumnBuilder()));
      return column;
    }));
    return id;
  }

  private enter(id: number, count = 1): readonly ColumnBuilder[] {
    const end = this.length + count;
    if (end > this.shapeOf.length) {
      const grown = new Uint32Array(Math.max(end, this.length * 2));
      grown.set(this.shapeOf);
      this.shapeOf = grown;
    }
    if (count === 1) this.shapeOf[this.length] = id;
    else this.shapeOf.fill(id, this.length, end);
    this.length = end;
    return this.shapeColumns[id]!;
  }
}

// ---------------------------------------------------------------------------------------------------------- decoding

/** Builds a row of one shape from the property columns (values decoded already) at one index. */
type RowFactory = (columns: readonly (readonly unknown[])[], at: Int32Array | number[]) => Record<string, unknown>;
/** Compiled once per shape (property names in order) for the process. */
const rowFactories = new Map<string, RowFactory>();

class Decoder {
  constructor(private readonly bytes: RunReader) {}

  node(node: Node): unknown {
    if (node === null || typeof node !== "object") return node;
    if (!Array.isArray(node)) return this.object(node);
    const tag = node[0] as string;
    switch (tag) {
      case "b":
        return BigInt(node[1] as string);
      case "n":
        return node[1] === "-0" ? -0 : Number(node[1]);
      case "u":
        return undefined;
      case "a":
        return node.slice(1).map((item) => this.node(item));
      case "c":
        return this.column(node[1]!);
      case "m": {
        const keys = this.column(node[1]!);
        const values = this.column(node[2]!);
        return new Map(keys.map((k, i) => [k, values[i]]));
      }
      case "s":
        return new Set(this.column(node[1]!));
      case "t": {
        const [type, offset, count] = node[1] as Segment;
        // Its own buffer, as the encoded array had: a view would share memory with other bytes (the body, Node's pool).
        return this.view(type, offset, count).slice();
      }
      default:
        throw new Error(`unknown tag "${tag}" in a columnar read model`);
    }
  }

  /** A plain object; a long array, Map or Set in it decodes when first read. */
  private object(node: { [key: string]: Node }): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const value = node[key]!;
      if (isLong(value)) defineLazy(out, key, () => this.node(value));
      else setOwn(out, key, this.node(value));
    }
    return out;
  }

  private view(type: ElementType, offset: number, count: number): AnyTypedArray {
    const Ctor = arrayTypes[type];
    const bytes = this.bytes(offset, count * Ctor.BYTES_PER_ELEMENT);
    // A body from the store, and a Buffer decoded from base64, own a plain ArrayBuffer (never a SharedArrayBuffer).
    return new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, count);
  }

  private segment(node: Node): AnyTypedArray {
    const [type, offset, count] = node as Segment;
    return this.view(type, offset, count);
  }

  /** A column's values, in order. */
  column(node: Node): unknown[] {
    const col = node as Node[];
    const n = col[1] as number;
    switch (col[0] as string) {
      case "Z":
        return new Array<unknown>(n).fill(this.node(col[2]!));
      case "F":
      case "I":
      case "B":
        return Array.from(this.segment(col[2]!) as ArrayLike<unknown>);
      case "T":
        return Array.from(this.segment(col[2]!) as Uint8Array, (b) => b === 1);
      case "S": {
        const [offset, length] = col[2] as Run;
        const strings = JSON.parse(this.bytes(offset, length).toString("utf8")) as string[];
        const indices = this.segment(col[3]!) as Uint8Array;
        const out = new Array<string>(n);
        for (let i = 0; i < n; i++) out[i] = strings[indices[i]!]!;
        return out;
      }
      case "G":
        return (col[2] as Node[]).map((item) => this.node(item));
      case "A":
        return this.arrays(n, this.segment(col[2]!) as Uint32Array, col[3]!);
      case "O":
        const shapeOf = col[3] === null ? null : this.segment(col[3]!);
        return this.objects(n, col[2] as string[][], shapeOf, col[4] as { [key: string]: Node });
      case "X":
        return this.mixed(n, this.segment(col[2]!) as Uint8Array, col[3] as Node[]);
      default:
        throw new Error(`unknown column type "${String(col[0])}" in a columnar read model`);
    }
  }

  private arrays(n: number, lengths: Uint32Array, items: Node): unknown[][] {
    const all = this.column(items);
    const out = new Array<unknown[]>(n);
    for (let i = 0, at = 0; i < n; i++) {
      const length = lengths[i]!;
      out[i] = all.slice(at, at + length);
      at += length;
    }
    return out;
  }

  private mixed(n: number, kinds: Uint8Array, columns: readonly Node[]): unknown[] {
    const values = columns.map((c) => this.column(c));
    const cursors = new Array<number>(values.length).fill(0);
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const k = kinds[i]!;
      out[i] = values[k]![cursors[k]!++];
    }
    return out;
  }

  /**
   * Rows of objects. A property holding arrays of many items in all (a group's partitions, a topic's partition
   * states) decodes, for every row at once, when one row's is first read.
   */
  private objects(n: number, shapes: string[][], shapeOf: AnyTypedArray | null, columns: { [key: string]: Node }): unknown[] {
    const names = Object.keys(columns);
    const lazy = names.filter((k) => isLazyColumn(columns[k]!));
    const values = names.map((k) => (lazy.includes(k) ? [] : this.column(columns[k]!)));
    const plans = shapes.map((keys) => {
      const columnOf = keys.map((k) => names.indexOf(k));
      const lazyAt = lazy.map((k) => keys.indexOf(k));
      return { columnOf, columns: columnOf.map((c) => values[c]!), make: compileRow(keys), lazyAt };
    });
    const lazyRows = lazy.map(() => ({ rows: [] as Record<string, unknown>[], at: [] as number[] }));
    const cursors = new Int32Array(names.length);
    const at: number[] = [];
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const plan = plans[shapeOf === null ? 0 : Number(shapeOf[i])]!;
      const columnOf = plan.columnOf;
      at.length = columnOf.length;
      for (let j = 0; j < columnOf.length; j++) at[j] = cursors[columnOf[j]!]!++;
      const row = plan.make(plan.columns, at);
      for (let l = 0; l < lazyRows.length; l++) {
        const p = plan.lazyAt[l]!;
        if (p < 0) continue;
        lazyRows[l]!.rows.push(row);
        lazyRows[l]!.at.push(at[p]!);
      }
      out[i] = row;
    }
    lazy.forEach((key, l) => {
      const column = columns[key] as Node[];
      const { rows, at: indices } = lazyRows[l]!;
      if (column[0] === "G") {
        rows.forEach((row, r) => defineLazy(row, key, () => this.node((column[2] as Node[])[indices[r]!]!)));
        return;
      }
      let decoded: unknown[] | null = null;
      const all = () => (decoded ??= this.column(column));
      rows.forEach((row, r) => defineLazy(row, key, () => all()[indices[r]!]));
    });
    return out;
  }
}

/** A node of an array, Map or Set of more than `lazyAbove` items. */
function isLong(node: Node): boolean {
  if (!Array.isArray(node)) return false;
  if (node[0] === "c" || node[0] === "s" || node[0] === "m") return ((node[1] as Node[])[1] as number) > lazyAbove;
  return false;
}

/**
 * A column whose rows' values decode when read: arrays holding more than `lazyAbove` items in all, four or more a row
 * on average (decoded for every row at once), or values written one by one of which one is long (each on its own).
 */
function isLazyColumn(col: Node): boolean {
  const c = col as Node[];
  if (c[0] === "G") return (c[2] as Node[]).some(isLong);
  if (c[0] !== "A") return false;
  const items = (c[3] as Node[])[1] as number;
  return items > lazyAbove && items >= 4 * (c[1] as number);
}

/**
 * An object literal of the shape's property names, each value `columns[j][at[j]]`: V8 builds such a literal in one
 * step with the right hidden class, where assigning properties by name in a loop goes through its slow generic path
 * (measured 20 times slower for a million rows of 20 properties). Names are quoted with JSON.stringify, so no name can
 * be code; `__proto__` (which a literal would take as the prototype) is defined as an own property.
 */
function compileRow(keys: readonly string[]): RowFactory {
  const id = keys.join("\u0000");
  let make = rowFactories.get(id);
  if (make) return make;
  if (keys.includes("__proto__")) {
    make = (columns, at) => {
      const row: Record<string, unknown> = {};
      keys.forEach((k, j) => setOwn(row, k, columns[j]![at[j]!]));
      return row;
    };
  } else {
    const fields = keys.map((k, j) => `${JSON.stringify(k)}: c[${j}][a[${j}]]`).join(", ");
    make = new Function("c", "a", `return { ${fields} };`) as RowFactory;
  }
  rowFactories.set(id, make);
  return make;
}

/** `target[key] = value`, where a key `__proto__` is a property like any other (an assignment would set the prototype). */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * `target[key]` as a property that decodes its value when first read and is a plain property from then on (or, on an
 * object frozen meanwhile, keeps the value it decoded). Assigning it first replaces it as a plain property would.
 */
function defineLazy(target: Record<string, unknown>, key: string, decode: () => unknown): void {
  let decoded = false;
  let value: unknown;
  const settle = (v: unknown) =>
    Object.defineProperty(target, key, { value: v, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (!decoded) {
        value = decode();
        decoded = true;
        if (Object.isExtensible(target)) settle(value);
      }
      return value;
    },
    set(v: unknown) {
      settle(v);
    },
  });
}
