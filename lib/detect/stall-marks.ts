/**
 * TASK_STALLED's marks (DetectorMemory.positions) as columns: one slot per flow partition key, its position, time
 * moved, log end then, not-running time and last-seen time in Float64Arrays. Each cycle writes a new table slot by
 * slot (the last cycle's stays as it was: runDetectors is pure), instead of a new mark object per partition put
 * into a new 100,000-key record: at 100,000 partitions that record alone took ~50 ms a cycle to build, and every
 * mark was garbage a cycle later.
 *
 * To everything else (the persister, shard merges, tests, JSON) the section is still a Record<string, PositionMark>:
 * a read-only view over the table that makes a mark object when one is asked for. The persister lists a cycle's
 * changes from the keys whose stored form may differ (section-changes.ts), as it does for the other sections.
 *
 * Offsets in a mark are exact as numbers: they come from flow partitions, checked below 2^53 (flow-columns.ts). A
 * mark read back from the store whose offsets are not such numbers is forgotten: its partition starts a new mark,
 * as after a restart (forgetting only delays a stall verdict, memory-persistence.ts).
 */
import { readSectionChanges, recordSectionChanges } from "./section-changes";
import type { PositionMark } from "./types";

/** Slot per key, shared by a chain of tables and only ever appended to (a table reads the slots it was made with). */
interface KeyIndex {
  byKey: Map<string, number>;
  keys: string[];
}

/** One cycle's marks. */
export interface StallTable {
  index: KeyIndex;
  /** Per slot: 1 when the key has a mark. */
  present: Uint8Array;
  position: Float64Array;
  movedAt: Float64Array;
  logEndAtMove: Float64Array;
  notRunningMs: Float64Array;
  seenAt: Float64Array;
  /** Keys with a mark. */
  size: number;
}

type Section = Readonly<Record<string, PositionMark>>;

const tablesBySection = new WeakMap<object, StallTable>();

/** Slots of keys without a mark are reclaimed once they outnumber the marks by this much. */
const maxIdleSlots = 4096;

/** The table behind a section: the one a StallMarksBuilder made, else one read from the plain record now. */
export function readStallTable(section: Section): StallTable {
  return tablesBySection.get(section) ?? readRecord(section);
}

/** The mark at `slot`, or undefined. */
export function readStallMark(table: StallTable, slot: number): PositionMark | undefined {
  if (slot < 0 || table.present[slot] !== 1) return undefined;
  return {
    position: String(table.position[slot]),
    movedAt: table.movedAt[slot]!,
    logEndAtMove: String(table.logEndAtMove[slot]),
    notRunningMs: table.notRunningMs[slot]!,
    seenAt: table.seenAt[slot]!,
  };
}

/** The slot of `key` in `table`, or −1. */
export function findStallSlot(table: StallTable, key: string): number {
  const slot = table.index.byKey.get(key);
  return slot === undefined || slot >= table.present.length ? -1 : slot;
}

/** Builds the next cycle's table from the last one's. */
export interface StallMarksBuilder {
  /**
   * The slot of `key` (made when new). Keys come in the same order every cycle: the slot after the last one asked
   * is tried before the map.
   */
  slotOf(key: string): number;
  /**
   * Sets the mark at `slot` (its key's), offsets as numbers; `stored`: its stored form may differ from the last
   * table's mark there.
   */
  put(slot: number, position: number, movedAt: number, logEndAtMove: number, notRunningMs: number, seenAt: number, stored: boolean): void;
  /** The section: a read-only record over the new table, recorded for the persister. */
  finish(): Record<string, PositionMark>;
}

/** A builder of the table after `base` (a section of the last cycle), at `now`. */
export function createStallMarksBuilder(base: Section, now: number): StallMarksBuilder {
  const before = readStallTable(base);
  let index = before.index;
  const baseMade = readSectionChanges(base);
  let capacity = Math.max(16, index.keys.length);
  let table = allocate(index, capacity);
  const touched: string[] = [];
  let kept = 0;
  let repeated = false;
  let last = -1;
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
    put(slot, position, movedAt, logEndAtMove, notRunningMs, seenAt, stored) {
      if (slot >= capacity) table = grow(table, (capacity = Math.max(slot + 1, capacity * 2)));
      if (table.present[slot] === 1) repeated = true;
      else {
        table.present[slot] = 1;
        table.size++;
        if (before.present[slot] === 1) kept++;
      }
      table.position[slot] = position;
      table.movedAt[slot] = movedAt;
      table.logEndAtMove[slot] = logEndAtMove;
      table.notRunningMs[slot] = notRunningMs;
      table.seenAt[slot] = seenAt;
      if (stored) touched.push(index.keys[slot]!);
    },
    finish() {
      if (index.keys.length - table.size > Math.max(maxIdleSlots, table.size)) [table, index] = compact(table);
      const section = createRecordView(table);
      recordSectionChanges(section, {
        baseId: baseMade?.id ?? 0,
        baseNow: baseMade?.now ?? Number.NaN,
        now,
        touched,
        touchedBefore: touched.map((key) => readStallMark(before, findStallSlot(before, key))),
        touchedAfter: touched.map((key) => readStallMark(table, findStallSlot(table, key))!),
        // The view is read by key, not in put order.
        keys: [],
        entries: [],
        repeated,
        size: table.size,
        dropped: kept !== before.size,
      });
      return section;
    },
  };
}

function allocate(index: KeyIndex, capacity: number): StallTable {
  return {
    index,
    present: new Uint8Array(capacity),
    position: new Float64Array(capacity),
    movedAt: new Float64Array(capacity),
    logEndAtMove: new Float64Array(capacity),
    notRunningMs: new Float64Array(capacity),
    seenAt: new Float64Array(capacity),
    size: 0,
  };
}

function grow(table: StallTable, capacity: number): StallTable {
  const grown = allocate(table.index, capacity);
  grown.present.set(table.present);
  grown.position.set(table.position);
  grown.movedAt.set(table.movedAt);
  grown.logEndAtMove.set(table.logEndAtMove);
  grown.notRunningMs.set(table.notRunningMs);
  grown.seenAt.set(table.seenAt);
  grown.size = table.size;
  return grown;
}

/** The table with only its marks' keys, in slot order (a new index: the old one stays with the older tables). */
function compact(table: StallTable): [StallTable, KeyIndex] {
  const index: KeyIndex = { byKey: new Map(), keys: [] };
  const compacted = allocate(index, Math.max(16, table.size));
  for (let slot = 0; slot < table.present.length; slot++) {
    if (table.present[slot] !== 1) continue;
    const to = index.keys.length;
    index.keys.push(table.index.keys[slot]!);
    index.byKey.set(table.index.keys[slot]!, to);
    copySlot(table, slot, compacted, to);
  }
  return [compacted, index];
}

function copySlot(from: StallTable, slot: number, to: StallTable, at: number): void {
  to.present[at] = 1;
  to.position[at] = from.position[slot]!;
  to.movedAt[at] = from.movedAt[slot]!;
  to.logEndAtMove[at] = from.logEndAtMove[slot]!;
  to.notRunningMs[at] = from.notRunningMs[slot]!;
  to.seenAt[at] = from.seenAt[slot]!;
  to.size++;
}

/** A table of the marks of a plain record (read from the store, merged across shards, or built by hand). */
function readRecord(section: Section): StallTable {
  const index: KeyIndex = { byKey: new Map(), keys: [] };
  const keys = Object.keys(section);
  let table = allocate(index, Math.max(16, keys.length));
  for (const key of keys) {
    const mark = section[key]!;
    const position = readExactOffset(mark.position);
    const logEndAtMove = readExactOffset(mark.logEndAtMove);
    if (position === null || logEndAtMove === null) continue;
    const slot = index.keys.length;
    index.keys.push(key);
    index.byKey.set(key, slot);
    if (slot >= table.present.length) table = grow(table, slot * 2);
    table.present[slot] = 1;
    table.size++;
    table.position[slot] = position;
    table.movedAt[slot] = mark.movedAt;
    table.logEndAtMove[slot] = logEndAtMove;
    table.notRunningMs[slot] = mark.notRunningMs;
    table.seenAt[slot] = mark.seenAt;
  }
  return table;
}

/** A decimal offset as the number it writes exactly (as a bigint's toString writes it), else null. */
function readExactOffset(text: string): number | null {
  const value = Number(text);
  return Number.isSafeInteger(value) && String(value) === text ? value : null;
}

/**
 * The table as a read-only Record<string, PositionMark>: a key's mark is made when asked for (a new object each
 * time). Keys are listed in slot order.
 */
function createRecordView(table: StallTable): Record<string, PositionMark> {
  const target: Record<string, PositionMark> = {};
  const view = new Proxy(target, {
    get(_, key, receiver) {
      if (typeof key === "string") {
        const slot = findStallSlot(table, key);
        if (slot >= 0 && table.present[slot] === 1) return readStallMark(table, slot);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(_, key) {
      return (typeof key === "string" && table.present[findStallSlot(table, key)] === 1) || Reflect.has(target, key);
    },
    ownKeys() {
      const keys: string[] = [];
      for (let slot = 0; slot < table.present.length; slot++) if (table.present[slot] === 1) keys.push(table.index.keys[slot]!);
      return keys;
    },
    getOwnPropertyDescriptor(_, key) {
      if (typeof key !== "string") return undefined;
      const mark = readStallMark(table, findStallSlot(table, key));
      return mark === undefined ? undefined : { value: mark, writable: false, enumerable: true, configurable: true };
    },
    set() {
      throw new TypeError("a detector memory section is read-only: build the next one (stall-marks.ts)");
    },
    deleteProperty() {
      throw new TypeError("a detector memory section is read-only: build the next one (stall-marks.ts)");
    },
  });
  tablesBySection.set(view, table);
  return view;
}
