import { describe, expect, it } from "vitest";
import {
  createCommittedMarksBuilder,
  createRoutineAdvanceTest,
  putCommittedMark,
  readCommittedTable,
  readCommittedValues,
} from "@/lib/detect/committed-marks";
import { findMarkSlot, findViewTable, readMark } from "@/lib/detect/mark-columns";
import { readSectionChanges } from "@/lib/detect/section-changes";
import type { CommittedMark } from "@/lib/detect/types";
import { T0 } from "./fixtures";

describe("MM2_POSITION_MOVED's marks as columns", () => {
  it("reads marks with and without their optional fields back as the same marks, fields in the order they are made", () => {
    const plain: Record<string, CommittedMark> = {
      "f|a|0": { committed: "100", highest: "120", topicId: "id-1" },
      "f|a|1": { committed: "0", highest: "0", topicId: "id-2", replacedCommitted: "450", connector: "mm2-b" },
      "f|a|2": { committed: "7", highest: "9", topicId: null, goneSince: T0 },
    };
    const table = readCommittedTable(plain);
    const next = createCommittedMarksBuilder(plain, T0 + 5000);
    for (const key of Object.keys(plain)) putCommittedMark(next, next.slotOf(key), false, readCommittedValues(table, findMarkSlot(table, key)));
    const section = next.finish();
    expect({ ...section }).toEqual(plain);
    // The JSON the persister stores: the same text as the marks' own.
    for (const key of Object.keys(plain)) expect(JSON.stringify(section[key])).toBe(JSON.stringify(plain[key]));
  });

  it("forgets a stored mark whose offsets are not exact as numbers", () => {
    const table = readCommittedTable({ "f|a|0": { committed: "9007199254740993", highest: "1", topicId: null }, "f|a|1": { committed: "1", highest: "2", topicId: null } });
    expect(findMarkSlot(table, "f|a|0")).toBe(-1);
    expect(readCommittedValues(table, findMarkSlot(table, "f|a|1"))).toMatchObject({ committed: 1, highest: 2, topicId: null });
  });

  it("tells a routine advance from the numbers: MM2 advanced, nothing else changed", () => {
    const base: Record<string, CommittedMark> = {
      "f|a|0": { committed: "100", highest: "120", topicId: "id-1" },
      "f|a|1": { committed: "100", highest: "120", topicId: "id-1" },
      "f|a|2": { committed: "100", highest: "120", topicId: "id-1" },
      "f|a|3": { committed: "100", highest: "120", topicId: "id-1", connector: "mm2-a" },
      "f|a|4": { committed: "100", highest: "120", topicId: "id-1", goneSince: T0 },
      "f|a|5": { committed: "100", highest: "120", topicId: null },
    };
    const first = createCommittedMarksBuilder(base, T0);
    const table = readCommittedTable(base);
    for (const key of Object.keys(base)) putCommittedMark(first, first.slotOf(key), false, readCommittedValues(table, findMarkSlot(table, key)));
    const before = first.finish();
    const next = createCommittedMarksBuilder(before, T0 + 5000);
    const put = (key: string, committed: number, highest: number, topicId: string | null, connector?: string, goneSince = Number.NaN) =>
      putCommittedMark(next, next.slotOf(key), true, { committed, highest, topicId, connector, replacedCommitted: Number.NaN, goneSince });
    put("f|a|0", 130, 140, "id-1"); // advanced: routine
    put("f|a|1", 90, 140, "id-1"); // committed went down
    put("f|a|2", 150, 140, "id-1"); // a pending forward move (committed > highest)
    put("f|a|3", 130, 140, "id-1"); // connector changed
    put("f|a|4", 130, 140, "id-1"); // no longer gone
    put("f|a|5", 130, 140, "id-2"); // topic ID learned
    const after = next.finish();
    const made = readSectionChanges(after)!;
    const isRoutine = createRoutineAdvanceTest(made.before, made.after);
    expect(made.touched.map((_, i) => isRoutine(made.beforeSlots[i]!, made.afterSlots[i]!))).toEqual([true, false, false, false, false, false]);
    // The slots the persister compares: the touched keys' marks in the base and in the section.
    expect(readCommittedValues(made.before, made.beforeSlots[1]!)).toMatchObject({ committed: 100, highest: 120 });
    expect(readCommittedValues(made.after, made.afterSlots[1]!)).toMatchObject({ committed: 90, highest: 140 });
    expect(findViewTable(after)?.table).toBe(made.after);
  });

  it("finds the table behind a section a builder made, and none behind a plain record", () => {
    const first = createCommittedMarksBuilder({}, T0);
    putCommittedMark(first, first.slotOf("f|a|0"), true, { committed: 1, highest: 2, topicId: null, connector: undefined, replacedCommitted: Number.NaN, goneSince: Number.NaN });
    putCommittedMark(first, first.slotOf("f|a|1"), true, { committed: 3, highest: 4, topicId: "x", connector: "c", replacedCommitted: 2, goneSince: Number.NaN });
    const section = first.finish();
    const view = findViewTable(section)!;
    expect(Object.keys(section).map((key) => readMark(view.table, findMarkSlot(view.table, key), view.spec))).toEqual(Object.values(section));
    expect(findViewTable({ ...section })).toBeUndefined();
  });
});
