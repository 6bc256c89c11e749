import { describe, expect, it } from "vitest";
import type { PartitionSample } from "@/lib/store";
import { type MarkAlert, placeAlertMarks } from "@/lib/views/partition";

const T0 = Date.UTC(2026, 10, 29, 23, 0, 0);
const sample = (at: number, logStart: bigint, logEnd: bigint, position: bigint): PartitionSample => ({
  at,
  sourceLogStart: logStart,
  sourceLogEnd: logEnd,
  mm2Position: position,
  targetLogEnd: position,
  lag: logEnd - position,
});
// A purge seen at T0 + 3 s: log start 787 passed MM2's position 365 (the samples alone would say 422 lost).
const samples = [sample(T0, 0n, 400n, 365n), sample(T0 + 3000, 787n, 825n, 825n), sample(T0 + 6000, 0n, 10n, 10n)];
const range = { from: T0 - 60_000, to: T0 + 60_000 };
const loss = (first: string, last: string, count: string, seenAt: number): MarkAlert => ({
  type: "DATA_LOSS",
  summary: `${count} records of orders/2 were deleted at east before MM2 copied them`,
  evidence: { firstLostOffset: first, lastLostOffset: last, lostCount: count, exact: true, seenAt },
  firstSeen: seenAt,
});
const reset: MarkAlert = {
  type: "TOPIC_RESET",
  summary: "orders/2 was reset at east (topic ID changed): MM2 copies 10 offsets again",
  evidence: { oldTopicId: "a", newTopicId: "b" },
  firstSeen: T0 + 6000,
};

describe("partition chart marks come from alerts only", () => {
  it("draws a DATA_LOSS alert's exact range between the sample before its detection and the detection", () => {
    expect(placeAlertMarks(samples, [loss("367", "786", "420", T0 + 3000)], range)).toEqual({
      gaps: [{ from: T0, to: T0 + 3000, lowOffset: 367, highOffset: 787, records: "420" }],
      resets: [],
    });
  });

  it("draws no loss where the samples jump but no alert says records were lost", () => {
    // The log start passes MM2's previous position between two samples: the view used to call this a loss.
    expect(placeAlertMarks(samples, [], range)).toEqual({ gaps: [], resets: [] });
  });

  it("marks a TOPIC_RESET alert at its first sighting, with its summary", () => {
    expect(placeAlertMarks(samples, [reset], range)).toEqual({ gaps: [], resets: [{ at: T0 + 6000, label: "topic reset", summary: reset.summary }] });
  });

  it("leaves out alerts first seen outside the range, other types, and losses without an exact range", () => {
    const alerts: MarkAlert[] = [
      loss("10", "19", "10", T0 - 120_000),
      { ...loss("1", "2", "2", T0 + 3000), evidence: { firstLostOffset: "1", lastLostOffset: "2" } },
      { ...loss("1", "2", "2", T0 + 3000), evidence: { firstLostOffset: 1, lastLostOffset: "2", lostCount: "2" } },
      { type: "REPLICATION_LAG", summary: "east->west is 5 records behind", evidence: { totalLag: "5" }, firstSeen: T0 + 3000 },
    ];
    expect(placeAlertMarks(samples, alerts, range)).toEqual({ gaps: [], resets: [] });
  });

  it("orders several losses by detection time; the first sample of the range has no sample before it", () => {
    const marks = placeAlertMarks(samples, [loss("900", "949", "50", T0 + 6000), loss("0", "9", "10", T0)], range);
    expect(marks.gaps).toEqual([
      { from: T0, to: T0, lowOffset: 0, highOffset: 10, records: "10" },
      { from: T0 + 3000, to: T0 + 6000, lowOffset: 900, highOffset: 950, records: "50" },
    ]);
  });
});
