/**
 * One write's series samples, by column, and the series id of each key that both stores' tiered tables keep in
 * memory (tiers.ts; the values last written per id: cycle-changes.ts). At 100,000 series a cycle, the write path
 * builds no object, array or joined string per sample: keys are looked up through nested maps of the key values the
 * domain objects already hold.
 */
export type SeriesValue = bigint | null;

/**
 * A value column: int64 values as bigints (null: none), or a flow's offsets as a Float64Array (lib/collector/
 * flow-columns.ts: integers checked exact below 2^53 where the columns are filled; NaN: none). Both are stored as the
 * same int64 (cycle-changes.ts).
 */
export type SeriesColumn = readonly SeriesValue[] | Float64Array;

/** Row i of a write: its key columns `keys[c][i]` (spec order), its values `values[j][i]` (spec order). */
export interface SeriesBatch {
  keys: readonly (readonly (string | number)[])[];
  values: readonly SeriesColumn[];
}

/** A batch's first N value columns, as a builder destructures them. */
export type Columns<N extends number, T extends SeriesValue[][] = []> =
  T["length"] extends N ? T : Columns<N, [...T, SeriesValue[]]>;

type KeyNode = Map<string | number, KeyNode | number>;

/** A batch's key columns and ids, as kept for the next batch of the same first key (a flow). */
interface KeptBatch {
  keys: SeriesBatch["keys"];
  ids: readonly number[];
}

/**
 * Series ids by key values: a map per key column, the last one mapping to the id. A cycle lists the same series in
 * the same order, so a row whose keys equal those of the previous batch's row at its position takes that row's id
 * without a lookup. The previous batch is kept per first key value of its first row (a flow: each flow's
 * translation is its own batch).
 */
export class SeriesIds {
  private readonly root: KeyNode = new Map();
  private readonly kept = new Map<string | number | undefined, KeptBatch>();
  /** The key columns `find` was last asked about, and their kept batch: one map lookup per batch, not per row. */
  private asked: { keys: SeriesBatch["keys"]; previous: KeptBatch | undefined } | null = null;

  /** The id of row `row` of a batch, if known. */
  find(keys: SeriesBatch["keys"], row: number): number | undefined {
    if (this.asked?.keys !== keys) this.asked = { keys, previous: this.kept.get(keys[0]?.[0]) };
    const previous = this.asked.previous;
    if (previous !== undefined && row < previous.ids.length && hasSameKey(previous.keys, keys, row)) return previous.ids[row];
    let node = this.root;
    const last = keys.length - 1;
    for (let c = 0; c < last; c++) {
      const next = node.get(keys[c]![row]!);
      if (next === undefined) return undefined;
      node = next as KeyNode;
    }
    return node.get(keys[last]![row]!) as number | undefined;
  }

  /**
   * The previous batch's ids when every key column of `keys` is the same array as that batch's (the pipeline hands
   * the same key arrays while a flow's partitions and groups are listed as before: translation-series.ts, series.ts),
   * else null. The ids returned are never changed.
   */
  reuse(keys: SeriesBatch["keys"]): readonly number[] | null {
    const previous = this.kept.get(keys[0]?.[0]);
    if (previous === undefined || previous.keys.length !== keys.length) return null;
    for (let c = 0; c < keys.length; c++) if (previous.keys[c] !== keys[c]) return null;
    return previous.ids;
  }

  /** Keeps a batch's ids (`ids[i]`: row i's) for the next batch's lookups. */
  keep(keys: SeriesBatch["keys"], ids: readonly number[]): void {
    this.kept.set(keys[0]?.[0], { keys, ids });
    this.asked = null;
  }

  add(keyValues: readonly (string | number)[], id: number): void {
    let node = this.root;
    const last = keyValues.length - 1;
    for (let c = 0; c < last; c++) {
      let next = node.get(keyValues[c]!) as KeyNode | undefined;
      if (next === undefined) node.set(keyValues[c]!, (next = new Map()));
      node = next;
    }
    node.set(keyValues[last]!, id);
  }
}

function hasSameKey(a: SeriesBatch["keys"], b: SeriesBatch["keys"], row: number): boolean {
  for (let c = 0; c < b.length; c++) if (a[c]![row] !== b[c]![row]) return false;
  return true;
}

/** Row `row`'s key values (only for series not known yet: the rare path). */
export function listKeyValues(keys: SeriesBatch["keys"], row: number): (string | number)[] {
  return keys.map((column) => column[row]!);
}
