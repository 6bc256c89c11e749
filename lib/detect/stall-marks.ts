/**
 * TASK_STALLED's marks (DetectorMemory.positions) as columns (mark-columns.ts). A mark read back from the store whose
 * offsets are not exact as numbers is forgotten: its partition starts a new mark, as after a restart (forgetting
 * only delays a stall verdict, memory-persistence.ts).
 */
import { createMarkTableBuilder, type MarkColumnsSpec, type MarkTable, type MarkTableBuilder, readExactOffset, readMarkTable } from "./mark-columns";
import type { PositionMark } from "./types";

/** The columns of a stall mark, in order. */
export const StallColumn = { position: 0, movedAt: 1, logEndAtMove: 2, notRunningMs: 3, seenAt: 4 } as const;

const spec: MarkColumnsSpec<PositionMark> = {
  name: "positions",
  width: 5,
  read(mark) {
    const position = readExactOffset(mark.position);
    const logEndAtMove = readExactOffset(mark.logEndAtMove);
    return position === null || logEndAtMove === null ? null : { numbers: [position, mark.movedAt, logEndAtMove, mark.notRunningMs, mark.seenAt] };
  },
  make(columns, slot) {
    return {
      position: String(columns[StallColumn.position]![slot]),
      movedAt: columns[StallColumn.movedAt]![slot]!,
      logEndAtMove: String(columns[StallColumn.logEndAtMove]![slot]),
      notRunningMs: columns[StallColumn.notRunningMs]![slot]!,
      seenAt: columns[StallColumn.seenAt]![slot]!,
    };
  },
};

/** The columns behind a section of stall marks. */
export function readStallTable(section: Readonly<Record<string, PositionMark>>): MarkTable {
  return readMarkTable(section, spec);
}

/** A builder of the next cycle's stall marks (put takes position, movedAt, logEndAtMove, notRunningMs, seenAt). */
export function createStallMarksBuilder(base: Readonly<Record<string, PositionMark>>, now: number): MarkTableBuilder<PositionMark> {
  return createMarkTableBuilder(base, now, spec);
}

/** A stall table's columns by name. */
export interface StallColumns {
  present: Uint8Array;
  position: Float64Array;
  movedAt: Float64Array;
  logEndAtMove: Float64Array;
  notRunningMs: Float64Array;
  seenAt: Float64Array;
}

/** The columns of a table of stall marks, by name. */
export function nameStallColumns(table: MarkTable): StallColumns {
  const at = (column: number) => table.columns[column]!;
  return {
    present: table.present,
    position: at(StallColumn.position),
    movedAt: at(StallColumn.movedAt),
    logEndAtMove: at(StallColumn.logEndAtMove),
    notRunningMs: at(StallColumn.notRunningMs),
    seenAt: at(StallColumn.seenAt),
  };
}
