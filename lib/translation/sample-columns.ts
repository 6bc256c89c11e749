/**
 * The store's samples of one flow translation (lib/store translation-series.ts) as columns: 190,000 rows a cycle at
 * 100,000 partitions were 190,000 objects and 1.3 million bigints made only to be copied into the store's columns.
 * A numeric row (translation-rows.ts) is written as numbers; a row held as an object as its sample's values.
 */
import type { FlowTranslation } from "./types";
import { readGroupRows, type RowSample, sampleRow, type TranslationRows } from "./translation-rows";

/** A value column: float64 (NaN: null) while every value is an exact integer, else bigints (null: none). */
export type SampleColumn = Float64Array | readonly (bigint | null)[];

/** RowSample's fields by column, row i of each column being sample i (in listTranslationSamples' order). */
export interface TranslationSampleColumns {
  readonly length: number;
  readonly groups: readonly string[];
  readonly topics: readonly string[];
  readonly partitions: readonly number[];
  readonly committed: SampleColumn;
  readonly translated: SampleColumn;
  readonly checkpointDownstream: SampleColumn;
  readonly idealLow: SampleColumn;
  readonly idealHigh: SampleColumn;
  readonly reread: SampleColumn;
  readonly failoverReread: SampleColumn;
  readonly groupLag: SampleColumn;
}

const valueNames = ["committed", "translated", "checkpointDownstream", "idealLow", "idealHigh", "reread", "failoverReread", "groupLag"] as const;
type ValueName = (typeof valueNames)[number];

/**
 * The value columns being filled: numbers, NaN for null. A value float64 would round (beyond 2^53, only in a row held
 * as an object) is kept aside, and its column becomes bigints when finished.
 */
export class SampleColumnsBuilder {
  readonly committed: Float64Array;
  readonly translated: Float64Array;
  readonly checkpointDownstream: Float64Array;
  readonly idealLow: Float64Array;
  readonly idealHigh: Float64Array;
  readonly reread: Float64Array;
  readonly failoverReread: Float64Array;
  readonly groupLag: Float64Array;
  private readonly inexact = new Map<ValueName, Map<number, bigint>>();

  constructor(readonly length: number) {
    this.committed = new Float64Array(length);
    this.translated = new Float64Array(length);
    this.checkpointDownstream = new Float64Array(length);
    this.idealLow = new Float64Array(length);
    this.idealHigh = new Float64Array(length);
    this.reread = new Float64Array(length);
    this.failoverReread = new Float64Array(length);
    this.groupLag = new Float64Array(length);
  }

  /** Forgets the values kept aside (every row is set again before `finish`). */
  clear(): void {
    this.inexact.clear();
  }

  /** Sets row `i` from a sample (a row held as an object, or a group without columns). */
  setSample(i: number, sample: RowSample): void {
    for (const name of valueNames) this.setValue(name, i, sample[name]);
  }

  /** The columns, with the keys of each row. */
  finish(groups: readonly string[], topics: readonly string[], partitions: readonly number[]): TranslationSampleColumns {
    const columns: Record<ValueName, SampleColumn> = { ...this.pickNumbers() };
    for (const [name, values] of this.inexact) {
      const numbers = this[name];
      columns[name] = Array.from(numbers, (v, i) => values.get(i) ?? (Number.isNaN(v) ? null : BigInt(v)));
    }
    return { length: this.length, groups, topics, partitions, ...columns };
  }

  private setValue(name: ValueName, i: number, value: bigint | null): void {
    if (value === null) {
      this[name][i] = Number.NaN;
      return;
    }
    const number = Number(value);
    if (Number.isSafeInteger(number)) {
      this[name][i] = number;
      return;
    }
    let values = this.inexact.get(name);
    if (values === undefined) this.inexact.set(name, (values = new Map()));
    values.set(i, value);
  }

  private pickNumbers(): Record<ValueName, Float64Array> {
    const { committed, translated, checkpointDownstream, idealLow, idealHigh, reread, failoverReread, groupLag } = this;
    return { committed, translated, checkpointDownstream, idealLow, idealHigh, reread, failoverReread, groupLag };
  }
}

/** The key columns of a flow's samples: row r is group `groups[r]`'s partition `topics[r]`/`partitions[r]`. */
export interface SampleKeys {
  readonly groups: readonly string[];
  readonly topics: readonly string[];
  readonly partitions: readonly number[];
}

/** A translation's rows and the keys of its samples (made on first use). */
interface FlowRows {
  rows: TranslationRows;
  readKeys: () => SampleKeys;
}

/** Where translate-flow.ts keeps a translation's rows: not enumerable, so the translation reads as it always did. */
const rowsKey = Symbol("flow-translation-rows");

/**
 * Registers the columns every group of `translation` reads its rows from (the groups' rows in order, from row 0), and
 * how to get their keys.
 */
export function attachFlowRows(translation: FlowTranslation, rows: TranslationRows, readKeys: () => SampleKeys): void {
  const held: FlowRows = { rows, readKeys };
  Object.defineProperty(translation, rowsKey, { value: held, enumerable: false });
}

/** The builder of the last samples of a flow's key columns (lib/translation hands the same arrays while its groups stay). */
const builders = new WeakMap<readonly string[], SampleColumnsBuilder>();

/**
 * A builder for samples keyed by `groups`: the last one made for the same key arrays, emptied, so a cycle at 190,000
 * group partitions fills the columns of the cycle before (12 MiB) instead of allocating new ones.
 */
function reuseBuilder(groups: readonly string[]): SampleColumnsBuilder {
  const held = builders.get(groups);
  if (held !== undefined) {
    held.clear();
    return held;
  }
  const builder = new SampleColumnsBuilder(groups.length);
  builders.set(groups, builder);
  return builder;
}

/**
 * The store's sample of every group × partition of `translation` (listTranslationSamples' values and order), as
 * columns: read from the flow's rows without making a row or a sample where translate-flow.ts made them, from each
 * row's sample otherwise (a decoded read model, a hand-built translation). The columns read from the flow's rows are
 * written over by the next call for the same flow's groups: the store copies what it keeps (lib/store cycle-changes.ts).
 */
export function collectSampleColumns(translation: FlowTranslation): TranslationSampleColumns {
  const held = (translation as { [rowsKey]?: FlowRows })[rowsKey];
  if (held !== undefined) {
    const keys = held.readKeys();
    const builder = reuseBuilder(keys.groups);
    held.rows.writeSamples(builder, keys.groups);
    return builder.finish(keys.groups, keys.topics, keys.partitions);
  }
  let count = 0;
  for (const g of translation.groups) count += readGroupRows(g).length;
  const builder = new SampleColumnsBuilder(count);
  const groups = new Array<string>(count);
  const topics = new Array<string>(count);
  const partitions = new Array<number>(count);
  let at = 0;
  for (const g of translation.groups) {
    const reader = readGroupRows(g);
    for (let i = 0; i < reader.length; i++, at++) {
      groups[at] = g.group;
      topics[at] = reader.topic(i);
      partitions[at] = reader.partition(i);
      builder.setSample(at, sampleRow(g.group, reader.row(i)));
    }
  }
  return builder.finish(groups, topics, partitions);
}
