/**
 * A long part of a read model handed to the columnar encoder (columnar-codec.ts) as the columns it is held in, instead
 * of as the millions of objects the encoder would otherwise have made for it only to split them into columns again.
 * The encoder writes such a part byte for byte as it writes the value the columns stand for, so a web instance decodes
 * it as that value (the decoder does not know the difference).
 */

/** The method by which a part hands over its columns (a symbol: JSON and object spreads do not see it). */
export const encodeAsColumns = Symbol("encode-as-columns");

/** A Map as columns: its keys and its values, in the Map's order. */
export interface ColumnarMap {
  readonly kind: "map";
  readonly keys: ColumnInput;
  readonly values: ColumnInput;
}

/** One column of values, given in the form they are held in. */
export type ColumnInput =
  /** Any values: written as the encoder writes an array of them. */
  | { readonly kind: "values"; readonly values: readonly unknown[] }
  /** bigints, held as the exact integers they are (|value| ≤ 2^53). */
  | { readonly kind: "int64"; readonly values: Float64Array }
  /** Objects that all have the properties `keys`, in that order, none undefined: one column per property. */
  | {
      readonly kind: "objects"; readonly length: number; readonly keys: readonly string[];
      readonly columns: readonly ColumnInput[];
    }
  /** Arrays: the length of each, and all their items one after the other. */
  | { readonly kind: "arrays"; readonly lengths: Uint32Array; readonly items: ColumnInput }
  /**
   * Strings no two alike (a Map's keys) with their JSON text, made once by describeDistinctStrings: a column of keys a
   * part keeps from one publication to the next is written without being looked up and stringified again.
   */
  | DistinctStrings;

/** Strings no two alike and `JSON.stringify` of them as UTF-8 (describeDistinctStrings). */
export interface DistinctStrings {
  readonly kind: "distinct strings";
  readonly values: readonly string[];
  readonly json: Buffer;
}

/** `values` (no two alike: the caller's promise, as a Map's keys are) as a column input that keeps their JSON text. */
export function describeDistinctStrings(values: readonly string[]): DistinctStrings {
  return { kind: "distinct strings", values, json: Buffer.from(JSON.stringify(values)) };
}

/**
 * Where rows are written as the values of their properties instead of being made: `int64` takes a bigint held as the
 * exact integer it is (|value| ≤ 2^53), `object` starts an object whose properties are `shape` (an array made once:
 * the encoder knows a shape by it) and returns one sink per property, in order.
 */
export interface ColumnSink {
  value(value: unknown): void;
  int64(value: number): void;
  object(shape: readonly string[]): readonly ColumnSink[];
}

/**
 * A ColumnSink that also takes a run of rows' values at once, each method the values of rows [start, end) in order
 * (rows held as columns written a column at a time): `int64s` bigints held as the exact integers they are
 * (|value| ≤ 2^53), `nullableInt64s` the same with NaN for null, `primitives` strings or numbers (all of one kind),
 * `strings` the string `names[codes[i]]` for each row i, `repeat` one string, number, boolean or null `count` times.
 * `arrays` starts one array per row, of `lengths[i]` items: it returns the sink that then takes all their items, in
 * order (one array after the other). `objects` starts one value per row: an object of shape `shapes[shapeOf[i]]` (each shape an array made once), or
 * null where shapeOf[i] is no shape's index; it returns one sink per property name of the shapes, in the order the
 * names first appear in `shapes`, and each then takes the values of the rows whose shape has that name, in order.
 */
export interface ColumnBlockSink extends ColumnSink {
  int64s(values: Float64Array, start: number, end: number): void;
  nullableInt64s(values: Float64Array, start: number, end: number): void;
  primitives(values: ArrayLike<string> | ArrayLike<number>, start: number, end: number): void;
  strings(names: readonly string[], codes: Uint8Array, start: number, end: number): void;
  repeat(value: string | number | boolean | null, count: number): void;
  arrays(lengths: Uint32Array, start: number, end: number): ColumnBlockSink;
  objects(
    shapes: readonly (readonly string[])[], shapeOf: Uint8Array, start: number, end: number,
  ): readonly ColumnBlockSink[];
}

/** Marks an array of objects held as columns (ColumnarRows). */
export const columnarRows = Symbol("columnar-rows");

/**
 * An array of objects held as columns, where the encoder meets an array: written as the array `listRows` gives, each
 * row by `writeRows` instead of made.
 */
export interface ColumnarRows {
  readonly [columnarRows]: true;
  readonly length: number;
  /** Writes every row, in order (a column at a time where it can: ColumnBlockSink). */
  writeRows(sink: ColumnBlockSink): void;
  /**
   * Optional: writes the rows of every one of `all` (consecutive arrays of one column, this the first, every one
   * of them with this very `writeRowsOf`), in order, as writeRows of each would: the runs of columns they share
   * written as one (a flow's 9,000 groups of rows are one run of its columns).
   */
  writeRowsOf?(all: readonly ColumnarRows[], sink: ColumnBlockSink): void;
  /** The rows as objects (an array of a few rows is written value by value). */
  listRows(): readonly unknown[];
}

/** Whether `value` is an array of objects held as columns. */
export function isColumnarRows(value: object): value is ColumnarRows {
  return (value as Partial<ColumnarRows>)[columnarRows] === true;
}

/** A part of a read model that hands its columns over to the encoder. */
export interface ColumnarSource {
  [encodeAsColumns](): ColumnarMap;
}

/** Whether `value` hands its columns over to the encoder. */
export function isColumnarSource(value: object): value is ColumnarSource {
  return typeof (value as Partial<ColumnarSource>)[encodeAsColumns] === "function";
}
