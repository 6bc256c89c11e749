/**
 * MM2_POSITION_MOVED's marks (DetectorMemory.committed) as columns (mark-columns.ts): Connect's committed position,
 * the highest position MM2 reached, the position set aside at a topic reset and when the partition left every flow
 * as numbers (NaN: absent); the source topic ID and the copying connector as texts. A stored mark whose offsets are
 * not exact as numbers is forgotten: its partition starts a new mark, as the first sight of a partition does.
 */
import { createMarkTableBuilder, type MarkColumnsSpec, type MarkTable, type MarkTableBuilder, readExactOffset, readMarkTable, type Text } from "./mark-columns";
import type { CommittedMark } from "./types";

/** The columns of a committed mark, in order. */
export const CommittedColumn = { committed: 0, highest: 1, replacedCommitted: 2, goneSince: 3 } as const;
/** Its text columns. */
export const CommittedText = { topicId: 0, connector: 1 } as const;

const spec: MarkColumnsSpec<CommittedMark> = {
  name: "committed",
  width: 4,
  textWidth: 2,
  read(mark) {
    const committed = readExactOffset(mark.committed);
    const highest = readExactOffset(mark.highest);
    const replaced = mark.replacedCommitted === undefined ? Number.NaN : readExactOffset(mark.replacedCommitted);
    if (committed === null || highest === null || replaced === null) return null;
    return { numbers: [committed, highest, replaced, mark.goneSince ?? Number.NaN], texts: [mark.topicId, mark.connector] };
  },
  make: (columns, slot, texts) =>
    makeCommittedMark(
      columns[CommittedColumn.committed]![slot]!,
      columns[CommittedColumn.highest]![slot]!,
      columns[CommittedColumn.replacedCommitted]![slot]!,
      columns[CommittedColumn.goneSince]![slot]!,
      texts[CommittedText.topicId]![slot],
      texts[CommittedText.connector]![slot],
    ),
};

/** A mark's numbers in column order and its texts (CommittedText order), or null when its offsets are not exact. */
export function readCommittedParts(mark: CommittedMark): { numbers: readonly number[]; texts: readonly Text[] } | null {
  const parts = spec.read(mark);
  return parts === null ? null : { numbers: parts.numbers, texts: parts.texts ?? [] };
}

/** The mark of the values given (NaN: absent), as the columns make it. */
export function makeCommittedMark(
  committed: number, highest: number, replacedCommitted: number, goneSince: number, topicId: Text, connector: Text,
): CommittedMark {
  // The fields in the order every way of making a mark gives them (position-moved.ts): its JSON is stored as is.
  const mark: CommittedMark = { committed: String(committed), highest: String(highest), topicId: topicId ?? null };
  if (!Number.isNaN(replacedCommitted)) mark.replacedCommitted = String(replacedCommitted);
  if (typeof connector === "string") mark.connector = connector;
  if (!Number.isNaN(goneSince)) mark.goneSince = goneSince;
  return mark;
}

/** A connector text as a mark holds it (`make`: only a string). */
export function asConnector(text: Text): string | undefined {
  return typeof text === "string" ? text : undefined;
}

/**
 * Whether a committed mark only advanced — MM2 copying on: the same topic, connector and gone state, neither position
 * went down, no pending forward move (committed above highest) — from the mark at `slot` of `mark` to the values
 * given (offsets exact as numbers: they order as their text). The one test of a routine advance: the persister writes
 * such a change at most once a minute (memory-persistence.ts), and MM2_POSITION_MOVED's steady path takes a partition
 * whose new mark is one (position-moved.ts).
 */
export function isRoutineAdvance(
  mark: CommittedColumns,
  slot: number,
  committed: number,
  highest: number,
  goneSince: number,
  topicId: Text,
  connector: Text,
): boolean {
  const gone = mark.goneSince[slot]!;
  if (gone !== goneSince && !(Number.isNaN(gone) && Number.isNaN(goneSince))) return false;
  if ((mark.topicId[slot] ?? null) !== (topicId ?? null) || asConnector(mark.connector[slot]) !== asConnector(connector)) return false;
  return committed >= mark.committed[slot]! && highest >= mark.highest[slot]! && committed <= highest;
}

/** isRoutineAdvance from the mark at slot `b` of `before` to the one at slot `a` of `after` (both present). */
export function createRoutineAdvanceTest(before: MarkTable, after: MarkTable): (b: number, a: number) => boolean {
  const x = nameCommittedColumns(before);
  const y = nameCommittedColumns(after);
  return (b, a) => isRoutineAdvance(x, b, y.committed[a]!, y.highest[a]!, y.goneSince[a]!, y.topicId[a], y.connector[a]);
}

/** The columns behind a section of committed marks. */
export function readCommittedTable(section: Readonly<Record<string, CommittedMark>>): MarkTable {
  return readMarkTable(section, spec);
}

/** A builder of the next cycle's committed marks. */
export function createCommittedMarksBuilder(base: Readonly<Record<string, CommittedMark>>, now: number): MarkTableBuilder<CommittedMark> {
  return createMarkTableBuilder(base, now, spec);
}

/** One committed mark's values (offsets as numbers; NaN: absent). */
export interface CommittedValues {
  committed: number;
  highest: number;
  topicId: string | null;
  connector: string | undefined;
  replacedCommitted: number;
  goneSince: number;
}

/** Puts a mark's values at `slot`; `stored`: its stored form may differ from the last table's mark there. */
export function putCommittedMark(next: MarkTableBuilder<CommittedMark>, slot: number, stored: boolean, v: CommittedValues): void {
  next.put(slot, stored, v.committed, v.highest, v.replacedCommitted, v.goneSince);
  next.putText(slot, CommittedText.topicId, v.topicId);
  next.putText(slot, CommittedText.connector, v.connector);
}

/** The values of the mark at `slot` (present). */
export function readCommittedValues(table: MarkTable, slot: number): CommittedValues {
  return {
    committed: table.columns[CommittedColumn.committed]![slot]!,
    highest: table.columns[CommittedColumn.highest]![slot]!,
    topicId: table.texts[CommittedText.topicId]![slot] ?? null,
    connector: table.texts[CommittedText.connector]![slot] ?? undefined,
    replacedCommitted: table.columns[CommittedColumn.replacedCommitted]![slot]!,
    goneSince: table.columns[CommittedColumn.goneSince]![slot]!,
  };
}

/** A routine advance's mark at `slot` from its numbers (not gone): putCommittedMark without a values object. */
export function putCommittedNumbers(
  next: MarkTableBuilder<CommittedMark>,
  slot: number,
  stored: boolean,
  committed: number,
  highest: number,
  replacedCommitted: number,
  topicId: string | null,
  connector: string | undefined,
): void {
  next.put(slot, stored, committed, highest, replacedCommitted, Number.NaN);
  next.putText(slot, CommittedText.topicId, topicId);
  next.putText(slot, CommittedText.connector, connector);
}

/** A table of committed marks' columns, by name. */
export interface CommittedColumns {
  committed: Float64Array;
  highest: Float64Array;
  replacedCommitted: Float64Array;
  goneSince: Float64Array;
  topicId: readonly Text[];
  connector: readonly Text[];
}

/** The columns of a table of committed marks, by name. */
export function nameCommittedColumns(table: MarkTable): CommittedColumns {
  return {
    committed: table.columns[CommittedColumn.committed]!,
    highest: table.columns[CommittedColumn.highest]!,
    replacedCommitted: table.columns[CommittedColumn.replacedCommitted]!,
    goneSince: table.columns[CommittedColumn.goneSince]!,
    topicId: table.texts[CommittedText.topicId]!,
    connector: table.texts[CommittedText.connector]!,
  };
}
