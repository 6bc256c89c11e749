import { describe, expect, it } from "vitest";
import { createCommittedMarksBuilder, putCommittedMark, readCommittedTable, readCommittedValues } from "@/lib/detect/committed-marks";
import { findMarkSlot } from "@/lib/detect/mark-columns";
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
});
