import { describe, expect, it } from "vitest";
import type { PartitionSample } from "@/lib/store";
import { findLossAndResets, readLossEvidence, refineGapsWithAlerts } from "@/lib/views/partition";

const T0 = Date.UTC(2026, 10, 29, 23, 0, 0);
const sample = (at: number, logStart: bigint, logEnd: bigint, position: bigint): PartitionSample => ({
  at,
  sourceLogStart: logStart,
  sourceLogEnd: logEnd,
  mm2Position: position,
  targetLogEnd: position,
  lag: logEnd - position,
});

describe("partition chart marks", () => {
  it("marks a data-loss gap where the log start passed the previous sample's MM2 position, and a reset where the log end fell below it", () => {
    const marks = findLossAndResets([sample(T0, 0n, 400n, 365n), sample(T0 + 3000, 787n, 825n, 825n), sample(T0 + 6000, 0n, 10n, 10n)]);
    expect(marks.gaps).toEqual([{ from: T0, to: T0 + 3000, lowOffset: 365, highOffset: 787, records: "422" }]);
    expect(marks.resets).toEqual([{ at: T0 + 6000, label: "topic reset" }]);
  });

  it("takes the exact range of the DATA_LOSS alert covering a gap, so chart and banner agree", () => {
    const gaps = findLossAndResets([sample(T0, 0n, 400n, 365n), sample(T0 + 3000, 787n, 825n, 825n)]).gaps;
    const evidence = readLossEvidence({ firstLostOffset: "367", lastLostOffset: "786", lostCount: "420", exact: true });
    expect(refineGapsWithAlerts(gaps, [evidence!])).toEqual([{ from: T0, to: T0 + 3000, lowOffset: 367, highOffset: 787, records: "420" }]);
    // An alert about other offsets leaves the estimate alone.
    expect(refineGapsWithAlerts(gaps, [{ firstLostOffset: "5000", lastLostOffset: "5100", lostCount: "101" }])).toEqual(gaps);
  });

  it("reads loss evidence only when all three offsets are present as strings", () => {
    expect(readLossEvidence({ firstLostOffset: "1", lastLostOffset: "2" })).toBeNull();
    expect(readLossEvidence({ firstLostOffset: 1, lastLostOffset: "2", lostCount: "2" })).toBeNull();
  });
});
