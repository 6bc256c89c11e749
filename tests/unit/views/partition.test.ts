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
      events: [],
    });
  });

  it("draws no loss where the samples jump but no alert says records were lost", () => {
    // The log start passes MM2's previous position between two samples: the view used to call this a loss.
    expect(placeAlertMarks(samples, [], range)).toEqual({ gaps: [], resets: [], events: [] });
  });

  it("marks a TOPIC_RESET alert at its first sighting, with its summary", () => {
    expect(placeAlertMarks(samples, [reset], range)).toEqual({ gaps: [], resets: [{ at: T0 + 6000, label: "topic reset", summary: reset.summary }], events: [] });
  });

  it("leaves out alerts first seen outside the range, other types, and losses without an exact range", () => {
    const alerts: MarkAlert[] = [
      loss("10", "19", "10", T0 - 120_000),
      { ...loss("1", "2", "2", T0 + 3000), evidence: { firstLostOffset: "1", lastLostOffset: "2" } },
      { ...loss("1", "2", "2", T0 + 3000), evidence: { firstLostOffset: 1, lastLostOffset: "2", lostCount: "2" } },
      { type: "REPLICATION_LAG", summary: "east->west is 5 records behind", evidence: { totalLag: "5" }, firstSeen: T0 + 3000 },
    ];
    expect(placeAlertMarks(samples, alerts, range)).toEqual({ gaps: [], resets: [], events: [] });
  });

  it("orders several losses by detection time; the first sample of the range has no sample before it", () => {
    const marks = placeAlertMarks(samples, [loss("900", "949", "50", T0 + 6000), loss("0", "9", "10", T0)], range);
    expect(marks.gaps).toEqual([
      { from: T0, to: T0, lowOffset: 0, highOffset: 10, records: "10" },
      { from: T0 + 3000, to: T0 + 6000, lowOffset: 900, highOffset: 950, records: "50" },
    ]);
  });
});

// Evidence as lib/detect/redelivery.ts and position-moved.ts write it (offsets as decimal strings).
const redelivery = (first: string, last: string, count: string, seenAt: number): MarkAlert => ({
  type: "MM2_REDELIVERY",
  summary: `MM2 restarted and copied ${count} records of orders/2 again: source offsets ${first}..${last} are on west twice`,
  evidence: { firstDuplicateOffset: first, lastDuplicateOffset: last, duplicateCount: count, targetTopic: "east.orders", firstSecondCopyTargetOffset: "1210", seenAt },
  firstSeen: seenAt,
});
const moved = (direction: string, first: string, last: string, count: string, seenAt: number): MarkAlert => ({
  type: "MM2_POSITION_MOVED",
  summary: `MM2's position of orders/2 was moved ${direction} by hand`,
  evidence: {
    direction,
    // Back: from one past the last re-copied offset to the first; forward: from the first skipped to one past the last.
    previousPosition: direction === "back" ? String(Number(last) + 1) : first,
    newPosition: direction === "back" ? first : String(Number(last) + 1),
    firstAffectedOffset: first, lastAffectedOffset: last, affectedCount: count, connector: "mm2-source", seenAt },
  firstSeen: seenAt - 5000,
});

describe("partition chart marks for MM2 events", () => {
  it("marks a re-copy with its exact source range, at the time the event was seen", () => {
    const alert = redelivery("1199", "1209", "11", T0 + 3000);
    expect(placeAlertMarks(samples, [alert], range).events).toEqual([{ at: T0 + 3000, kind: "redelivery", label: "MM2 re-copied 11 records (1,199–1,209)", summary: alert.summary }]);
  });

  it("marks positions moved back and forward by hand with what is re-copied or skipped, in time order", () => {
    const back = moved("back", "1200", "1249", "50", T0 + 6000);
    const forward = moved("forward", "2000", "2000", "1", T0);
    expect(placeAlertMarks(samples, [back, forward], range)).toEqual({
      gaps: [],
      resets: [],
      events: [
        { at: T0, kind: "moved-forward", label: "position moved forward by hand: 1 record skipped (2,000)", summary: forward.summary },
        { at: T0 + 6000, kind: "moved-back", label: "position moved back by hand: 50 records re-copied (1,200–1,249)", summary: back.summary },
      ],
    });
  });

  it("leaves out events outside the range and events without exact evidence", () => {
    const alerts: MarkAlert[] = [
      redelivery("1199", "1209", "11", T0 - 120_000),
      { ...redelivery("1199", "1209", "11", T0), evidence: { firstDuplicateOffset: "1199", lastDuplicateOffset: "1209", seenAt: T0 } },
      moved("sideways", "1200", "1249", "50", T0),
      { ...moved("back", "1200", "1249", "50", T0), evidence: { direction: "back", firstAffectedOffset: 1200, lastAffectedOffset: "1249", affectedCount: "50", seenAt: T0 } },
    ];
    expect(placeAlertMarks(samples, alerts, range).events).toEqual([]);
  });
});
