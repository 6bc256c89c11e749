/**
 * A per-partition section of the detector memory (TASK_STALLED's marks, the offset-sync markers) as columns: one
 * slot per flow partition key, the entry's numbers in Float64Arrays. Each cycle writes a new table slot by slot (the
 * last cycle's stays as it was: runDetectors is pure), instead of a new entry object per partition put into a new
 * 100,000-key record: at 100,000 partitions such a record alone took ~50 ms a cycle to build, and every entry was
 * garbage a cycle later. The new table starts as a copy of the last one's columns (a block copy), so an entry that did
 * not change is only marked present (`keep`), and a rule walking a flow finds each slot by the partition's position
 * in the flow's slot keys (`slotOfKeyAt`), not by hashing its key.
 *
 * To everything else (the persister, shard merges, tests, JSON) the section is still a Record<string, T>: a
 * read-only view over the table that makes an entry object when one is asked for. The persister lists a cycle's
 * changes from the keys whose stored form may differ (section-changes.ts), as it does for the other sections.
 *
 * Offsets are exact as numbers below 2^53 (flow-columns.ts checks a flow's). An entry read back from the store
 * whose offsets are not such numbers is forgotten, as after a restart (the section's spec says what that costs).
 */
import { readSectionChanges, recordSectionChanges } from "./section-changes";

/** How one section's entries map to columns. */
export interface MarkColumnsSpec<T> {
  /** The section's name, for the read-only error. */
  name: string;
  /** Number columns per entry (at most 5). */
  width: number;
  /** Text columns per entry (strings, null or undefined; none when absent). */
  textWidth?: number;
  /** An entry's numbers, in column order, and its texts; null when an offset in it is not exact as a number. */
  read(entry: T): { numbers: readonly number[]; texts?: readonly Text[] } | null;
  /** The entry at `slot`. */
  make(columns: readonly Float64Array[], slot: number, texts: readonly (readonly Text[])[]): T;
}

/** A value of a text column. */
export type Text = string | null | undefined;

/** Slot per key, shared by a chain of tables and only ever appended to (a table reads the slots it was made with). */
export interface KeyIndex {
  byKey: Map<string, number>;
  keys: string[];
}

/** One cycle's entries. */
export interface MarkTable {
  index: KeyIndex;
  /** Per slot: 1 when the key has an entry. */
  present: Uint8Array;
  columns: Float64Array[];
  texts: Text[][];
  /** Keys with an entry. */
  size: number;
}

type Section<T> = Readonly<Record<string, T>>;

const tablesBySection = new WeakMap<object, MarkTable>();
/** The table and spec behind each read-only view (createRecordView). */
const viewsBySection = new WeakMap<object, { table: MarkTable; spec: MarkColumnsSpec<never> }>();

/** Slots of keys without an entry are reclaimed once they outnumber the entries by this much. */
const maxIdleSlots = 4096;

/**
 * The table behind a section: the one a MarkTableBuilder made, else one read from the plain record (once: sections
 * are never changed once made, section-changes.ts).
 */
export function readMarkTable<T>(section: Section<T>, spec: MarkColumnsSpec<T>): MarkTable {
  let table = tablesBySection.get(section);
  if (table === undefined) tablesBySection.set(section, (table = readRecord(section, spec)));
  return table;
}

/**
 * The slot of a key in `table`, or −1, for keys asked in the order they were put last cycle: the slot after the
 * last one found is tried before the map.
 */
export function createSlotReader(table: MarkTable): (key: string) => number {
  let last = -1;
  return (key) => {
    const slot = table.index.keys[last + 1] === key && last + 1 < table.present.length ? last + 1 : findMarkSlot(table, key);
    if (slot >= 0) last = slot;
    return slot;
  };
}

/** The slot of `key` in `table`, or −1. */
export function findMarkSlot(table: MarkTable, key: string): number {
  const slot = table.index.byKey.get(key);
  return slot === undefined || slot >= table.present.length ? -1 : slot;
}

/** The entry at `slot`, or undefined. */
export function readMark<T>(table: MarkTable, slot: number, spec: MarkColumnsSpec<T>): T | undefined {
  return slot < 0 || table.present[slot] !== 1 ? undefined : spec.make(table.columns, slot, table.texts);
}

/** Builds the next cycle's table from the last one's. */
export interface MarkTableBuilder<T> {
  /**
   * The slot of `key` (made when new). Keys come in the same order every cycle: the slot after the last one asked
   * is tried before the map.
   */
  slotOf(key: string): number;
  /**
   * Sets the entry at `slot` (its key's) to the numbers given in column order; `stored`: its stored form may differ
   * from the last table's entry there.
   */
  put(slot: number, stored: boolean, v0: number, v1?: number, v2?: number, v3?: number, v4?: number): void;
  /** Sets text column `column` of the entry at `slot` (after its put). */
  putText(slot: number, column: number, text: Text): void;
  /**
   * Keeps the last table's entry at `slot` (present there) as it was, numbers and texts, stored alike: a put of its
   * own values without writing them (the new table starts as a copy of the last one's columns).
   */
  keep(slot: number): void;
  /**
   * The slot of `keys[at]` (slotOf), remembered per `keys` array for this table's key index: `keys` must only ever
   * be appended to (a flow's slot keys, flow-columns.ts; the sync store's keys), so a position names one key for
   * the array's life and a steady partition's slot is found without hashing its key.
   */
  slotOfKeyAt(keys: readonly (string | undefined)[], at: number): number;
  /** Whether `key` was put. */
  has(key: string): boolean;
  /** The section: a read-only record over the new table, recorded for the persister. */
  finish(): Record<string, T>;
}

/** A builder of the table after `base` (a section of the last cycle), at `now`. */
export function createMarkTableBuilder<T>(base: Section<T>, now: number, spec: MarkColumnsSpec<T>): MarkTableBuilder<T> {
  const before = readMarkTable(base, spec);
  let index = before.index;
  const baseMade = readSectionChanges(base);
  let capacity = Math.max(16, index.keys.length);
  let table = copyColumns(before, allocate(index, capacity, spec.width, spec.textWidth ?? 0));
  const slotMaps = readSlotMaps(index);
  const touched: string[] = [];
  // The touched keys' slots in `before`'s index, which the builder appends to until a compaction in finish.
  const touchedSlots: number[] = [];
  let kept = 0;
  let repeated = false;
  let last = -1;
  let lastKeys: readonly (string | undefined)[] | undefined;
  let lastSlots: Int32Array | undefined;
  return {
    slotOf(key) {
      let slot = index.keys[last + 1] === key ? last + 1 : index.byKey.get(key);
      if (slot === undefined) {
        slot = index.keys.length;
        index.keys.push(key);
        index.byKey.set(key, slot);
      }
      last = slot;
      return slot;
    },
    put(slot, stored, v0, v1 = 0, v2 = 0, v3 = 0, v4 = 0) {
      if (slot >= capacity) table = grow(table, (capacity = Math.max(slot + 1, capacity * 2)));
      if (table.present[slot] === 1) repeated = true;
      else {
        table.present[slot] = 1;
        table.size++;
        if (before.present[slot] === 1) kept++;
      }
      const { columns } = table;
      columns[0]![slot] = v0;
      if (columns.length > 1) columns[1]![slot] = v1;
      if (columns.length > 2) columns[2]![slot] = v2;
      if (columns.length > 3) columns[3]![slot] = v3;
      if (columns.length > 4) columns[4]![slot] = v4;
      if (stored) {
        touched.push(index.keys[slot]!);
        touchedSlots.push(slot);
      }
    },
    putText(slot, column, text) {
      table.texts[column]![slot] = text;
    },
    keep(slot) {
      // A slot present in `before` is below its key count, within the new table's first capacity: it was copied.
      if (table.present[slot] === 1) repeated = true;
      else {
        table.present[slot] = 1;
        table.size++;
        kept++;
      }
    },
    slotOfKeyAt(keys, at) {
      // A flow's positions come together: its keys' slot map is looked up once per flow, not per position.
      let slots = keys === lastKeys ? lastSlots : slotMaps.get(keys);
      if (slots === undefined || at >= slots.length) slotMaps.set(keys, (slots = growSlotMap(slots, keys.length)));
      lastKeys = keys;
      lastSlots = slots;
      let slot = slots[at]!;
      if (slot < 0) slots[at] = slot = this.slotOf(keys[at]!);
      return slot;
    },
    has(key) {
      const slot = findMarkSlot(table, key);
      return slot >= 0 && table.present[slot] === 1;
    },
    finish() {
      let afterSlots = touchedSlots;
      if (index.keys.length - table.size > Math.max(maxIdleSlots, table.size)) {
        [table, index] = compact(table);
        afterSlots = touched.map((key) => findMarkSlot(table, key));
      }
      const after = table;
      const section = createRecordView(after, spec);
      // The persister compares the tables' numbers and makes an entry only to serialize it.
      recordSectionChanges(section, {
        baseId: baseMade?.id ?? 0,
        baseNow: baseMade?.now ?? Number.NaN,
        now,
        touched,
        before,
        after,
        beforeSlots: touchedSlots,
        afterSlots,
        repeated,
        size: after.size,
        dropped: kept !== before.size,
      });
      return section;
    },
  };
}

function allocate(index: KeyIndex, capacity: number, width: number, textWidth: number): MarkTable {
  const columns = Array.from({ length: width }, () => new Float64Array(capacity));
  return { index, present: new Uint8Array(capacity), columns, texts: Array.from({ length: textWidth }, (): Text[] => []), size: 0 };
}

/**
 * `fresh` with the last table's numbers and texts where it has room: an entry kept (MarkTableBuilder.keep) is then
 * already in place. Slots without an entry hold stale values, as `present` says (every reader asks it first).
 */
function copyColumns(before: MarkTable, fresh: MarkTable): MarkTable {
  const length = Math.min(before.present.length, fresh.present.length);
  fresh.columns.forEach((column, k) => column.set(before.columns[k]!.subarray(0, length)));
  fresh.texts = fresh.texts.map((_, k) => before.texts[k]?.slice(0, length) ?? []);
  return fresh;
}

/** Per key index, the slot (−1: not asked yet) at each position of a keys array (MarkTableBuilder.slotOfKeyAt). */
const slotMapsByIndex = new WeakMap<KeyIndex, WeakMap<object, Int32Array>>();

function readSlotMaps(index: KeyIndex): WeakMap<object, Int32Array> {
  let maps = slotMapsByIndex.get(index);
  if (maps === undefined) slotMapsByIndex.set(index, (maps = new WeakMap()));
  return maps;
}

function growSlotMap(slots: Int32Array | undefined, length: number): Int32Array {
  const grown = new Int32Array(Math.max(16, length, 2 * (slots?.length ?? 0))).fill(-1);
  if (slots !== undefined) grown.set(slots);
  return grown;
}

function grow(table: MarkTable, capacity: number): MarkTable {
  const grown = allocate(table.index, capacity, table.columns.length, 0);
  grown.present.set(table.present);
  table.columns.forEach((column, k) => grown.columns[k]!.set(column));
  // Text columns are arrays: they grow by themselves.
  grown.texts = table.texts;
  grown.size = table.size;
  return grown;
}

/** The table with only its entries' keys, in slot order (a new index: the old one stays with the older tables). */
function compact(table: MarkTable): [MarkTable, KeyIndex] {
  const index: KeyIndex = { byKey: new Map(), keys: [] };
  const compacted = allocate(index, Math.max(16, table.size), table.columns.length, table.texts.length);
  for (let slot = 0; slot < table.present.length; slot++) {
    if (table.present[slot] !== 1) continue;
    const to = index.keys.length;
    index.keys.push(table.index.keys[slot]!);
    index.byKey.set(table.index.keys[slot]!, to);
    compacted.present[to] = 1;
    compacted.size++;
    table.columns.forEach((column, k) => (compacted.columns[k]![to] = column[slot]!));
    table.texts.forEach((column, k) => (compacted.texts[k]![to] = column[slot]));
  }
  return [compacted, index];
}

/** A table of the entries of a plain record (read from the store, merged across shards, or built by hand). */
function readRecord<T>(section: Section<T>, spec: MarkColumnsSpec<T>): MarkTable {
  const index: KeyIndex = { byKey: new Map(), keys: [] };
  const keys = Object.keys(section);
  const table = allocate(index, Math.max(16, keys.length), spec.width, spec.textWidth ?? 0);
  for (const key of keys) {
    const values = spec.read(section[key]!);
    if (values === null) continue;
    const slot = index.keys.length;
    index.keys.push(key);
    index.byKey.set(key, slot);
    table.present[slot] = 1;
    table.size++;
    values.numbers.forEach((value, k) => (table.columns[k]![slot] = value));
    values.texts?.forEach((text, k) => (table.texts[k]![slot] = text));
  }
  return table;
}

/** A decimal offset as the number it writes exactly (as a bigint's toString writes it), else null. */
export function readExactOffset(text: string): number | null {
  const value = Number(text);
  return Number.isSafeInteger(value) && String(value) === text ? value : null;
}

/**
 * The table as a read-only Record<string, T>: a key's entry is made when asked for (a new object each time). Keys are
 * listed in slot order.
 */
function createRecordView<T>(table: MarkTable, spec: MarkColumnsSpec<T>): Record<string, T> {
  const target: Record<string, T> = {};
  const readOnly = () => {
    throw new TypeError(`the detector memory's ${spec.name} section is read-only: build the next one (mark-columns.ts)`);
  };
  const view = new Proxy(target, {
    get(_, key, receiver) {
      const mark = typeof key === "string" ? readMark(table, findMarkSlot(table, key), spec) : undefined;
      return mark ?? (Reflect.get(target, key, receiver) as unknown);
    },
    has(_, key) {
      return (typeof key === "string" && table.present[findMarkSlot(table, key)] === 1) || Reflect.has(target, key);
    },
    ownKeys() {
      const keys: string[] = [];
      for (let slot = 0; slot < table.present.length; slot++) if (table.present[slot] === 1) keys.push(table.index.keys[slot]!);
      return keys;
    },
    getOwnPropertyDescriptor(_, key) {
      const mark = typeof key === "string" ? readMark(table, findMarkSlot(table, key), spec) : undefined;
      return mark === undefined ? undefined : { value: mark, writable: false, enumerable: true, configurable: true };
    },
    set: readOnly,
    deleteProperty: readOnly,
  });
  tablesBySection.set(view, table);
  viewsBySection.set(view, { table, spec: spec as MarkColumnsSpec<never> });
  return view;
}

/**
 * The table and spec behind a section made by a MarkTableBuilder (read slot by slot instead of through its record
 * view, whose keys, listed by Object.keys, make an entry each for their descriptor); undefined for a plain record.
 */
export function findViewTable<T>(section: Readonly<Record<string, T>>): { table: MarkTable; spec: MarkColumnsSpec<T> } | undefined {
  return viewsBySection.get(section) as { table: MarkTable; spec: MarkColumnsSpec<T> } | undefined;
}
