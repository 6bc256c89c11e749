/**
 * The columnar codec's encoder as it was before it read rows through compiled code (lib/pipeline/columnar-codec.ts at
 * 6ed5a08), kept as the reference the faster encoder must match byte for byte (columnar-codec.test.ts).
 */
/** A value in the header: a JSON primitive stands for itself, a JSON object for a plain object, an array is tagged. */
type Node = null | boolean | number | string | { [key: string]: Node } | Node[];
/** A run of the blob: [element type, byte offset, element count]. */
type Segment = [ElementType, number, number];
type ElementType = "f64" | "i32" | "i64" | "u32" | "u16" | "u8" | "i8" | "i16" | "u64" | "f32";
/** Where a run of the blob's bytes starts, and how long it is. */
type Run = [offset: number, length: number];

const magic = "gapwatch-columnar 1";
/** Arrays this short are written value by value in the header (columns of a few values cost more than they save). */
const inlineUpTo = 8;
/**
 * Runs of the blob start at multiples of 24 bytes: 8-byte aligned for any typed array, and a whole number of base64
 * groups (3 bytes, 4 characters), so each run's base64 decodes on its own, when its column is read.
 */
const runAlign = 24;

const arrayTypes = {
  f64: Float64Array, i32: Int32Array, i64: BigInt64Array, u32: Uint32Array, u16: Uint16Array, u8: Uint8Array,
  i8: Int8Array, i16: Int16Array, u64: BigUint64Array, f32: Float32Array,
} as const;
type AnyTypedArray =
  | Float64Array | Int32Array | BigInt64Array | Uint32Array | Uint16Array | Uint8Array | Int8Array | Int16Array
  | BigUint64Array | Float32Array;

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;

/** The text encodeColumnar wrote at 6ed5a08 for `value`. */
export function encodeColumnarReference(value: unknown): string {
  const writer = new BlobWriter();
  const header = JSON.stringify(encodeNode(value, writer));
  return `${magic}\n${header}\n${writer.finish().toString("base64")}`;
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

  private append(bytes: Buffer): Run {
    const offset = this.length;
    const padded = Math.ceil(bytes.length / runAlign) * runAlign;
    this.parts.push(bytes);
    if (padded > bytes.length) this.parts.push(Buffer.alloc(padded - bytes.length));
    this.length += padded;
    return [offset, bytes.length];
  }

  finish(): Buffer {
    return Buffer.concat(this.parts, this.length);
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
      return isPlainObject(v) ? "object" : "other";
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
      return ints ? ["I", n, w.write("i32", Int32Array.from(array))] : ["F", n, w.write("f64", array)];
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
    case "array": {
      const arrays = values as unknown[][];
      return ["A", n, w.write("u32", Uint32Array.from(arrays, (a) => a.length)), encodeColumn(arrays.flat(), w)];
    }
    case "null":
    case "undefined":
      return ["Z", n, encodeNode(values[0], w)];
    default:
      return ["G", n, values.map((v) => encodeNode(v, w))];
  }
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

/** Indices below `bound` in the narrowest unsigned type. */
function writeIndices(indices: Uint32Array, bound: number, w: BlobWriter): Segment {
  if (bound <= 0x100) return w.write("u8", Uint8Array.from(indices));
  if (bound <= 0x10000) return w.write("u16", Uint16Array.from(indices));
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

/** `target[key] = value`, where a key `__proto__` is a property like any other (an assignment would set the prototype). */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

