/**
 * Values gathered one by one into the column the encoder takes (a ColumnInput, columnar-source.ts) and writes byte
 * for byte as it writes the array of those values (columnar-codec.ts `encodeColumn`): objects split into one column
 * per property as they come, strings as indices into the distinct strings, numbers as float64, arrays as their lengths
 * and their items.
 * It spares the encoder the arrays it would otherwise split again (every object's values by property, the arrays of
 * arrays flattened) and a lookup per string where a string repeats the previous one (a topic's partitions).
 */
import type { ColumnInput } from "./columnar-source";

/** What the values gathered so far are: while all are of one of these kinds, they are held as a column of it. */
type Gathered = "nothing" | "strings" | "numbers" | "arrays" | "other";

/** One column of values of any kind: strings, numbers or arrays held as such while every value is one. */
export class ValueColumn {
  private gathered: Gathered = "nothing";
  private length = 0;
  /** The values as they are, once they are of several kinds ("other"). */
  private values: unknown[] = [];
  private readonly stringIds = new Map<string, number>();
  private lastString = "";
  private lastId = -1;
  /** The index of each string, or the length of each array. */
  private indices = new Uint32Array(16);
  private numbers = new Float64Array(16);
  private readonly items: unknown[] = [];

  add(value: unknown): void {
    const kind = this.kindOf(value);
    if (kind !== this.gathered) {
      if (this.gathered === "nothing") this.gathered = kind;
      else if (this.gathered !== "other") this.holdAsValues();
    }
    const at = this.length++;
    switch (this.gathered) {
      case "strings":
        this.addString(at, value as string);
        break;
      case "numbers":
        if (at === this.numbers.length) this.numbers = growFloat64(this.numbers);
        this.numbers[at] = value as number;
        break;
      case "arrays":
        this.addArray(at, value as readonly unknown[]);
        break;
      default:
        this.values.push(value);
    }
  }

  /** The column, written as `encodeColumn` writes the values added. */
  finish(): ColumnInput {
    const n = this.length;
    switch (this.gathered) {
      case "strings":
        return { kind: "strings", strings: [...this.stringIds.keys()], indices: this.indices.subarray(0, n) };
      case "numbers":
        return { kind: "numbers", values: this.numbers.subarray(0, n) };
      case "arrays":
        return { kind: "arrays", lengths: this.indices.subarray(0, n), items: { kind: "values", values: this.items } };
      default:
        return { kind: "values", values: this.values };
    }
  }

  private kindOf(value: unknown): Gathered {
    if (typeof value === "string") return "strings";
    if (typeof value === "number") return "numbers";
    return Array.isArray(value) ? "arrays" : "other";
  }

  /** A value of another kind came: the values so far as they are (equal values: the encoder writes the same bytes). */
  private holdAsValues(): void {
    const n = this.length;
    const values = new Array<unknown>(n);
    if (this.gathered === "strings") {
      const strings = [...this.stringIds.keys()];
      for (let i = 0; i < n; i++) values[i] = strings[this.indices[i]!];
    } else if (this.gathered === "numbers") {
      for (let i = 0; i < n; i++) values[i] = this.numbers[i];
    } else {
      for (let i = 0, at = 0; i < n; i++) values[i] = this.items.slice(at, (at += this.indices[i]!));
    }
    this.values = values;
    this.gathered = "other";
  }

  private addString(at: number, value: string): void {
    if (value !== this.lastString || this.lastId < 0) {
      let id = this.stringIds.get(value);
      if (id === undefined) this.stringIds.set(value, (id = this.stringIds.size));
      this.lastString = value;
      this.lastId = id;
    }
    if (at === this.indices.length) this.indices = growUint32(this.indices);
    this.indices[at] = this.lastId;
  }

  private addArray(at: number, value: readonly unknown[]): void {
    if (at === this.indices.length) this.indices = growUint32(this.indices);
    this.indices[at] = value.length;
    for (let i = 0; i < value.length; i++) this.items.push(value[i]);
  }
}

/**
 * A column of plain objects, split as `encodeObjects` splits them: their shapes (properties whose value is not
 * undefined, in order) as they first appear, one ValueColumn per property. A value that is not a plain object makes
 * it a column of the values as they are (the encoder then writes them as it would any).
 */
export class ObjectColumn {
  private readonly rows: unknown[] = [];
  private plain = true;
  private readonly shapes: string[][] = [];
  private readonly shapeIds = new Map<string, number>();
  private readonly shapeColumns: ValueColumn[][] = [];
  private readonly columns = new Map<string, ValueColumn>();
  private shapeOf = new Uint32Array(16);
  /** The previous row's keys (undefined values included), its shape, and its shape's reader (none undefined). */
  private previousKeys: readonly string[] | null = null;
  private previousId = 0;
  private previousReader: RowReader | null = null;

  add(row: unknown): void {
    const at = this.rows.push(row) - 1;
    if (!this.plain) return;
    if (!isPlainObject(row)) {
      this.plain = false;
      return;
    }
    if (at === this.shapeOf.length) this.shapeOf = growUint32(this.shapeOf);
    const keys = Object.keys(row);
    // A row of the previous row's keys, none undefined: read by the shape's compiled reader.
    const reader = this.previousReader;
    if (reader !== null && sameKeys(keys, this.previousKeys!) && reader(row, this.shapeColumns[this.previousId]!)) {
      this.shapeOf[at] = this.previousId;
      return;
    }
    const defined = keys.filter((k) => row[k] !== undefined);
    const id = this.identify(defined);
    this.previousKeys = keys;
    this.previousId = id;
    this.previousReader = defined.length === keys.length ? compileReader(keys) : null;
    this.shapeOf[at] = id;
    const columns = this.shapeColumns[id]!;
    for (let j = 0; j < columns.length; j++) columns[j]!.add(row[defined[j]!]);
  }

  /** The column, written as `encodeColumn` writes the rows added. */
  finish(): ColumnInput {
    if (!this.plain) return { kind: "values", values: this.rows };
    const columns = new Map<string, ColumnInput>();
    for (const [key, column] of this.columns) columns.set(key, column.finish());
    const length = this.rows.length;
    return { kind: "shapes", length, shapes: this.shapes, shapeOf: this.shapeOf.subarray(0, length), columns };
  }

  private identify(keys: readonly string[]): number {
    const name = keys.join("\u0000");
    const known = this.shapeIds.get(name);
    if (known !== undefined) return known;
    const id = this.shapes.push([...keys]) - 1;
    this.shapeIds.set(name, id);
    this.shapeColumns.push(keys.map((k) => {
      let column = this.columns.get(k);
      if (!column) this.columns.set(k, (column = new ValueColumn()));
      return column;
    }));
    return id;
  }
}

/**
 * Adds a row's values to its shape's columns, or returns false (adding nothing) when one of them is undefined. The
 * row's properties are read by name in an expression compiled once per shape: rows made alike (the collector's
 * partition states) then share V8's inline caches, where reading them by a key variable goes through its generic path
 * (measured a microsecond a row of ten properties).
 */
type RowReader = (row: Record<string, unknown>, columns: readonly ValueColumn[]) => boolean;
/** Compiled once per set of property names for the process. */
const rowReaders = new Map<string, RowReader>();

function compileReader(keys: readonly string[]): RowReader {
  const id = keys.join("\u0000");
  let read = rowReaders.get(id);
  if (read) return read;
  // Names are quoted with JSON.stringify: no name can be code.
  const values = keys.map((k, j) => `v${j} = r[${JSON.stringify(k)}]`).join(", ");
  const undefinedOne = keys.map((_, j) => `v${j} === undefined`).join(" || ") || "false";
  const adds = keys.map((_, j) => `c[${j}].add(v${j});`).join(" ");
  read = new Function("r", "c", `${keys.length ? `const ${values};` : ""} if (${undefinedOne}) return false; ${adds} return true;`) as RowReader;
  rowReaders.set(id, read);
  return read;
}

/** As the encoder tells a plain object (one it splits into columns) from any other. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function growFloat64(array: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(array.length * 2);
  grown.set(array);
  return grown;
}

function growUint32(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const grown = new Uint32Array(array.length * 2);
  grown.set(array);
  return grown;
}
