/**
 * What the memory persister (memory-persistence.ts) stored of a columnar section (mark-columns.ts): per slot of the
 * section's key index, the numbers and texts of the entry as written and when. A cycle's entry is compared with them
 * as numbers, and serialized only when they differ: keeping the stored JSON of every entry instead took 52 MiB of
 * the live heap at 100,000 partitions, and deciding what changed made an entry object and its JSON per change.
 *
 * An entry's stored JSON is made from its first `width` number columns and its text columns alone (the persister's
 * encode), so equal numbers and texts mean the same stored text.
 */
import { type KeyIndex, type MarkColumnsSpec, type MarkTable, type Text } from "./mark-columns";

/** The stored form of a columnar section's entries, slot by slot. */
export interface WrittenMarks {
  /** The key index the slots are of (the section's: tables of one chain share it). */
  index: KeyIndex;
  /** When each slot's entry was written (0: read from the store); NaN: none stored. */
  at: Float64Array;
  /** The entries as written: every column of the section's tables, so an entry can be made again (`readWrittenMark`). */
  columns: Float64Array[];
  texts: Text[][];
  /** The section's spec (the entry a slot holds). */
  spec: MarkColumnsSpec<never>;
}

/** An empty record of what was written of a section whose tables have `index`. */
export function createWrittenMarks(index: KeyIndex, table: MarkTable, spec: MarkColumnsSpec<never>): WrittenMarks {
  const capacity = Math.max(16, index.keys.length);
  return {
    index,
    at: new Float64Array(capacity).fill(Number.NaN),
    columns: table.columns.map(() => new Float64Array(capacity)),
    texts: table.texts.map((): Text[] => []),
    spec,
  };
}

/**
 * The record aligned with `index` (the section's this cycle): grown when the index gained keys, else moved to a new
 * index (a compacted table, or one read from a plain record) slot by slot by key. Entries whose key the new index
 * lacks (not in the section) are passed to `orphan` with the JSON-ready entry and when it was written.
 */
export function alignWrittenMarks(
  written: WrittenMarks,
  index: KeyIndex,
  orphan: (key: string, slot: number, at: number) => void,
): WrittenMarks {
  if (written.index === index) {
    if (index.keys.length > written.at.length) return moveWritten(written, index, Math.max(index.keys.length, written.at.length * 2), orphan);
    return written;
  }
  return moveWritten(written, index, Math.max(16, index.keys.length), orphan);
}

function moveWritten(written: WrittenMarks, index: KeyIndex, capacity: number, orphan: (key: string, slot: number, at: number) => void): WrittenMarks {
  const moved: WrittenMarks = {
    index,
    at: new Float64Array(capacity).fill(Number.NaN),
    columns: written.columns.map(() => new Float64Array(capacity)),
    texts: written.texts.map((): Text[] => []),
    spec: written.spec,
  };
  const same = written.index === index;
  for (let slot = 0; slot < written.at.length; slot++) {
    const at = written.at[slot]!;
    if (Number.isNaN(at)) continue;
    const key = written.index.keys[slot]!;
    const to = same ? slot : (index.byKey.get(key) ?? -1);
    if (to < 0 || to >= capacity) {
      orphan(key, slot, at);
      continue;
    }
    moved.at[to] = at;
    for (let k = 0; k < written.columns.length; k++) moved.columns[k]![to] = written.columns[k]![slot]!;
    for (let k = 0; k < written.texts.length; k++) moved.texts[k]![to] = written.texts[k]![slot];
  }
  return moved;
}

/** Whether the entry at `slot` of `table` (of the record's index) stores as what was written there. */
export function isWrittenSame(written: WrittenMarks, table: MarkTable, slot: number, width: number): boolean {
  for (let k = 0; k < width; k++) {
    const a = written.columns[k]![slot]!;
    const b = table.columns[k]![slot]!;
    // NaN: an optional field absent on both sides.
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
  }
  for (let k = 0; k < written.texts.length; k++) {
    // A mark's JSON holds a text as a string, or as null or absent for anything else (the spec's make).
    if (asStoredText(written.texts[k]![slot]) !== asStoredText(table.texts[k]![slot])) return false;
  }
  return true;
}

function asStoredText(text: Text): string | null {
  return typeof text === "string" ? text : null;
}

/** Records that the entry at `slot` of `table` was written at `at` (0: read from the store). */
export function recordWrittenMark(written: WrittenMarks, table: MarkTable, slot: number, at: number): void {
  written.at[slot] = at;
  for (let k = 0; k < written.columns.length; k++) written.columns[k]![slot] = table.columns[k]![slot]!;
  for (let k = 0; k < written.texts.length; k++) written.texts[k]![slot] = table.texts[k]![slot];
}

/** The entry written at `slot` (stored). */
export function readWrittenMark<T>(written: WrittenMarks, slot: number): T {
  const spec = written.spec as unknown as MarkColumnsSpec<T>;
  return spec.make(written.columns, slot, written.texts);
}

/** The slot of `key` in the record's index, or −1. */
export function findWrittenSlot(written: WrittenMarks, key: string): number {
  const slot = written.index.byKey.get(key);
  return slot === undefined || slot >= written.at.length ? -1 : slot;
}

/** Calls `visit` with the slot and key of every stored entry, in slot order. */
export function forEachWrittenMark(written: WrittenMarks, visit: (slot: number, key: string) => void): void {
  for (let slot = 0; slot < written.at.length; slot++) if (!Number.isNaN(written.at[slot]!)) visit(slot, written.index.keys[slot]!);
}
