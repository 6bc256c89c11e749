import { describe, expect, it } from "vitest";
import { readSectionChanges } from "@/lib/detect/section-changes";
import { findMarkSlot } from "@/lib/detect/mark-columns";
import { createStallMarksBuilder, nameStallColumns, readStallTable } from "@/lib/detect/stall-marks";
import type { PositionMark } from "@/lib/detect/types";
import { T0 } from "./fixtures";

const mark = (position: string, movedAt: number, logEndAtMove: string, notRunningMs = 0, seenAt = movedAt): PositionMark => ({
  position,
  movedAt,
  logEndAtMove,
  notRunningMs,
  seenAt,
});

describe("TASK_STALLED's marks as columns", () => {
  it("reads a plain record's marks, and is read back as the same record (keys, values, JSON, spread)", () => {
    const plain = { "f|a|0": mark("100", T0, "250"), "f|a|1": mark("7", T0 - 5000, "9", 1200, T0) };
    const next = createStallMarksBuilder(plain, T0 + 5000);
    const table = nameStallColumns(readStallTable(plain));
    for (const key of Object.keys(plain)) {
      const slot = next.slotOf(key);
      next.put(slot, false, table.position[slot]!, table.movedAt[slot]!, table.logEndAtMove[slot]!, table.notRunningMs[slot]!, T0 + 5000);
    }
    const section = next.finish();
    const expected = { "f|a|0": mark("100", T0, "250", 0, T0 + 5000), "f|a|1": mark("7", T0 - 5000, "9", 1200, T0 + 5000) };
    expect(Object.keys(section)).toEqual(["f|a|0", "f|a|1"]);
    expect(section["f|a|1"]).toEqual(expected["f|a|1"]);
    expect(section["f|a|9"]).toBeUndefined();
    expect("f|a|0" in section).toBe(true);
    expect({ ...section }).toEqual(expected);
    expect(JSON.parse(JSON.stringify(section))).toEqual(expected);
    expect(() => {
      (section as Record<string, PositionMark>)["f|a|0"] = mark("1", T0, "1");
    }).toThrow(/positions section is read-only/);
  });

  it("leaves the last cycle's section as it was, drops keys not put, and records the changes for the persister", () => {
    const first = createStallMarksBuilder({}, T0);
    first.put(first.slotOf("f|a|0"), false, 10, T0, 20, 0, T0);
    first.put(first.slotOf("f|a|1"), false, 30, T0, 40, 0, T0);
    const before = first.finish();
    const second = createStallMarksBuilder(before, T0 + 5000);
    // f|a|1 is gone; f|a|0 stood still (stored now: it was made last cycle); f|b|0 is new.
    second.put(second.slotOf("f|a|0"), true, 10, T0, 20, 0, T0 + 5000);
    second.put(second.slotOf("f|b|0"), false, 5, T0 + 5000, 6, 0, T0 + 5000);
    const after = second.finish();
    expect(before["f|a|1"]).toEqual(mark("30", T0, "40"));
    expect(before["f|a|0"]).toEqual(mark("10", T0, "20"));
    expect(Object.keys(after)).toEqual(["f|a|0", "f|b|0"]);
    expect(after["f|a|0"]).toEqual(mark("10", T0, "20", 0, T0 + 5000));
    const made = readSectionChanges(after)!;
    expect(made.baseId).toBe(readSectionChanges(before)!.id);
    expect(made.touched).toEqual(["f|a|0"]);
    // The touched key's slots in the base's table and the section's: seen last cycle, and this one.
    expect(nameStallColumns(made.before).seenAt[made.beforeSlots[0]!]).toBe(T0);
    expect(nameStallColumns(made.after).seenAt[made.afterSlots[0]!]).toBe(T0 + 5000);
    expect([made.size, made.dropped, made.repeated]).toEqual([2, true, false]);
  });

  it("forgets a stored mark whose offsets are not exact as numbers (its partition starts a new mark)", () => {
    const table = readStallTable({ "f|a|0": mark("9007199254740993", T0, "9007199254740994"), "f|a|1": mark("12", T0, "13") });
    expect(findMarkSlot(table, "f|a|0")).toBe(-1);
    expect(table.size).toBe(1);
    expect(nameStallColumns(table).position[findMarkSlot(table, "f|a|1")]).toBe(12);
  });
});
