import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeHistory, makeSnapshot, runCycles, T0 } from "./fixtures";

// orders/2 copied up to source offset 4999 (target 0..4999 in step); MM2 then crashes after
// copying up to 5299 but Connect had flushed only up to 5099: it resumes at 5100 and copies
// 5100..5299 a second time; its first sync after the restart is (5100, 5300).
const beforeCrash = makeFlowPartition({ sourceLogEnd: 5400n, mm2Position: 5300n, committedPosition: 5100n, targetLogEnd: 5300n, latestSync: { upstream: 5000n, downstream: 5000n } });
const afterRestart = makeFlowPartition({ sourceLogEnd: 5500n, mm2Position: 5380n, committedPosition: 5100n, targetLogEnd: 5580n, latestSync: { upstream: 5100n, downstream: 5300n } });

describe("MM2_REDELIVERY", () => {
  it("reports the exact duplicated source range and where the second copies are on the target, as info", () => {
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeCrash] }), history: makeHistory([[5000, 5000]]) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [afterRestart] }), history: makeHistory([[5000, 5000], [5100, 5300]]) },
    ]);
    const findings = findingsOf(second, FindingType.MM2_REDELIVERY);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "MM2_REDELIVERY|east->west|orders|2|5100",
      severity: "info",
      summary: "MM2 restarted and copied 200 records of orders/2 again: source offsets 5100–5299 are on west twice (the second copies are east.orders offsets 5300–5499)",
    });
    expect(findings[0]?.evidence).toMatchObject({
      firstDuplicateOffset: "5100",
      lastDuplicateOffset: "5299",
      duplicateCount: "200",
      firstSecondCopyTargetOffset: "5300",
      seenAt: T0 + 10_000,
    });
    expect(second!.findings.filter((f) => f.type !== FindingType.MM2_REDELIVERY)).toEqual([]);
  });

  it("counts a rewind below the previous sync the same way (the newest sync was past the flushed position)", () => {
    // Sync (5200, 5200), copies up to 5299, resume at 5150: 150 duplicates, sync (5150, 5300).
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeCrash] }), history: makeHistory([[5200, 5200]]) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [afterRestart] }), history: makeHistory([[5200, 5200], [5150, 5300]]) },
    ]);
    expect(findingsOf(second, FindingType.MM2_REDELIVERY).map((f) => [f.evidence.firstDuplicateOffset, f.evidence.lastDuplicateOffset, f.evidence.duplicateCount])).toEqual([
      ["5150", "5299", "150"],
    ]);
    expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
  });

  describe("benign and other cases", () => {
    it("stays quiet on ordinary sync steps, on upstream gaps (markers, compaction) and on a restart without re-copies", () => {
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeCrash] }), history: makeHistory([[5000, 5000]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [afterRestart] }), history: makeHistory([[5000, 5000], [5101, 5101], [5203, 5202], [5300, 5299]]) },
      ]);
      expect(findingsOf(second, FindingType.MM2_REDELIVERY)).toEqual([]);
    });

    it("leaves a recreated topic's syncs to TOPIC_RESET (the duplicated offsets would not exist in it)", () => {
      const recreated = { ...afterRestart, sourceTopicId: "id-2", sourceLogEnd: 40n, mm2Position: 40n, latestSync: { upstream: 0n, downstream: 5300n } };
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeCrash] }), history: makeHistory([[5000, 5000]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated] }), history: makeHistory([[5000, 5000], [0, 5300]]) },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [recreated] }), history: makeHistory([[5000, 5000], [0, 5300]]) },
      ]);
      expect(findingsOf(second, FindingType.MM2_REDELIVERY)).toEqual([]);
    });

    it("judges a step once: the same redelivery is one finding, held, not re-counted", () => {
      const history = makeHistory([[5000, 5000], [5100, 5300]]);
      const [, second, third] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeCrash] }), history: makeHistory([[5000, 5000]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [afterRestart] }), history },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [afterRestart] }), history },
      ]);
      expect(findingsOf(second, FindingType.MM2_REDELIVERY)).toHaveLength(1);
      expect(findingsOf(third, FindingType.MM2_REDELIVERY).map((f) => [f.key, f.evidence.duplicateCount])).toEqual([["MM2_REDELIVERY|east->west|orders|2|5100", "200"]]);
    });
  });
});
