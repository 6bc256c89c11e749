/**
 * One write's series samples, by column, and what both stores' tiered tables keep of them in memory (tiers.ts):
 * the series id of each key and the values last written per id. At 100,000 series a cycle, the write path builds
 * no object, array or joined string per sample: keys are looked up through nested maps of the key values the
 * domain objects already hold, and the last values sit in one array per column, indexed by series id.
 */
export type SeriesValue = bigint | null;

/** Row i of a write: its key columns `keys[c][i]` (spec order), its values `values[j][i]` (spec order). */
export interface SeriesBatch {
  keys: readonly (readonly (string | number)[])[];
  values: readonly (readonly SeriesValue[])[];
}

/** A batch's first N value columns, as a builder destructures them. */
export type Columns<N extends number, T extends SeriesValue[][] = []> =
  T["length"] extends N ? T : Columns<N, [...T, SeriesValue[]]>;

/** The rows of a batch to write: ascending by series id, one per id (`rows[k]` is the batch row of `ids[k]`). */
export interface ChangedRows {
  ids: number[];
  rows: number[];
}

type KeyNode = Map<string | number, KeyNode | number>;

/**
 * Series ids by key values: a map per key column, the last one mapping to the id. A cycle lists the same series in
 * the same order, so a row whose keys equal those of the previous batch's row at its position takes that row's id
 * without a lookup.
 */
export class SeriesIds {
  private readonly root: KeyNode = new Map();
  private previous: { keys: SeriesBatch["keys"]; ids: readonly number[] } | null = null;

  /** The id of row `row` of a batch, if known. */
  find(keys: SeriesBatch["keys"], row: number): number | undefined {
    const previous = this.previous;
    if (previous !== null && row < previous.ids.length && hasSameKey(previous.keys, keys, row)) return previous.ids[row];
    let node = this.root;
    const last = keys.length - 1;
    for (let c = 0; c < last; c++) {
      const next = node.get(keys[c]![row]!);
      if (next === undefined) return undefined;
      node = next as KeyNode;
    }
    return node.get(keys[last]![row]!) as number | undefined;
  }

  /** Keeps a batch's ids (`ids[i]`: row i's) for the next batch's lookups. */
  keep(keys: SeriesBatch["keys"], ids: readonly number[]): void {
    this.previous = { keys, ids };
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

/**
 * The values last written per series id, so that a cycle writes only the series that changed. `listChanged` does
 * not remember: the caller calls `remember` once the write committed (a failed write is tried again).
 */
export class ChangeFilter {
  /** Per value column, by series id (undefined: never written, unlike any value). */
  private readonly last: SeriesValue[][];

  constructor(width: number) {
    this.last = Array.from({ length: width }, () => []);
  }

  /** The rows (`ids[i]`: row i's series) whose values differ from the last written; of rows of one series, the last. */
  listChanged(batch: SeriesBatch, ids: readonly number[]): ChangedRows {
    const changed: ChangedRows = { ids: [], rows: [] };
    let ascending = true;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (this.isUnchanged(batch, id, i)) continue;
      const count = changed.ids.length;
      if (count > 0 && changed.ids[count - 1]! >= id) ascending = false;
      changed.ids.push(id);
      changed.rows.push(i);
    }
    return ascending ? changed : sortById(changed);
  }

  remember(batch: SeriesBatch, changed: ChangedRows): void {
    for (let j = 0; j < this.last.length; j++) {
      const last = this.last[j]!;
      const column = batch.values[j]!;
      for (let k = 0; k < changed.ids.length; k++) last[changed.ids[k]!] = column[changed.rows[k]!]!;
    }
  }

  private isUnchanged(batch: SeriesBatch, id: number, row: number): boolean {
    for (let j = 0; j < this.last.length; j++) if (this.last[j]![id] !== batch.values[j]![row]) return false;
    return true;
  }
}

/** Entries by id, the later row of an id kept (a later sample of a series in one write replaces the earlier). */
function sortById(changed: ChangedRows): ChangedRows {
  const order = changed.ids.map((_, k) => k).sort((a, b) => changed.ids[a]! - changed.ids[b]! || a - b);
  const sorted: ChangedRows = { ids: [], rows: [] };
  for (let n = 0; n < order.length; n++) {
    const k = order[n]!;
    const next = order[n + 1];
    if (next !== undefined && changed.ids[next] === changed.ids[k]) continue;
    sorted.ids.push(changed.ids[k]!);
    sorted.rows.push(changed.rows[k]!);
  }
  return sorted;
}
