import { describe, expect, it } from "vitest";
import { createCommittedMarksBuilder, putCommittedMark, readCommittedTable, readCommittedValues } from "@/lib/detect/committed-marks";
import { readSectionChanges } from "@/lib/detect/section-changes";
import type { CommittedMark } from "@/lib/detect/types";
import { T0 } from "./fixtures";
import { createRandom } from "../seeded-random";

type Marks = Readonly<Record<string, CommittedMark>>;

/** What the persister reads of a section: its entries and how it was made from the last one. */
function describeSection(section: Marks): unknown {
  const changes = readSectionChanges(section)!;
  return { entries: { ...section }, touched: [...changes.touched].sort(), size: changes.size, dropped: changes.dropped, repeated: changes.repeated };
}

describe("a mark table's kept entries (MarkTableBuilder.keep, slotOfKeyAt)", () => {
  it("gives the same sections as putting each kept entry's own values, over random cycles and a compaction", () => {
    const random = createRandom(11);
    // Append-only, as a flow's slot keys are: slotOfKeyAt remembers a slot per position.
    const keys: string[] = [];
    let kept: Marks = {};
    let put: Marks = {};
    let compacted = false;
    for (let cycle = 1; cycle <= 16; cycle++) {
      const now = T0 + cycle * 10_000;
      // Cycles 1–3 add thousands of keys; 4–8 drop most of them (the table compacts past 4,096 idle slots).
      const adding = cycle <= 3 ? 1600 : 3;
      for (let n = 0; n < adding; n++) keys.push(`f|t${keys.length % 7}|${keys.length}`);
      const keep = createCommittedMarksBuilder(kept, now);
      const reference = createCommittedMarksBuilder(put, now);
      const keptTable = readCommittedTable(kept);
      const putTable = readCommittedTable(put);
      for (let at = 0; at < keys.length; at++) {
        const roll = random();
        if (cycle >= 4 && cycle <= 8 && at % 10 !== 0) continue;
        if (roll < 0.05) continue;
        const a = keep.slotOfKeyAt(keys, at);
        const b = reference.slotOf(keys[at]!);
        const had = keptTable.present[a] === 1;
        expect(putTable.present[b] === 1).toBe(had);
        if (had && roll < 0.7) {
          keep.keep(a);
          putCommittedMark(reference, b, false, readCommittedValues(putTable, b));
          continue;
        }
        const committed = Math.floor(random() * 1000);
        const values = {
          committed,
          highest: committed + Math.floor(random() * 50),
          topicId: random() < 0.5 ? "id-1" : null,
          connector: random() < 0.3 ? "mm2-b" : undefined,
          replacedCommitted: random() < 0.2 ? 7 : Number.NaN,
          goneSince: random() < 0.1 ? now : Number.NaN,
        };
        putCommittedMark(keep, a, true, values);
        putCommittedMark(reference, b, true, values);
      }
      kept = keep.finish();
      put = reference.finish();
      expect(describeSection(kept)).toEqual(describeSection(put));
      compacted ||= readCommittedTable(kept).index.keys.length < keys.length;
    }
    expect(compacted).toBe(true);
  }, 30_000);
});
