import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeHistory, makeSnapshot, runCycles, T0 } from "./fixtures";

const beforeReset = makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 5000n, mm2Position: 4800n, targetLogEnd: 4800n, latestSync: { upstream: 4799n, downstream: 4799n } });
const recreated = makeFlowPartition({ sourceTopicId: "id-2", sourceLogStart: 0n, sourceLogEnd: 300n, mm2Position: 4800n, targetLogEnd: 4800n, latestSync: { upstream: 4799n, downstream: 4799n } });

describe("TOPIC_RESET", () => {
  it("reports a recreated topic from its changed topic ID, with the records MM2 will copy again", () => {
    const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [beforeReset] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated] }) }]);
    const findings = findingsOf(second, FindingType.TOPIC_RESET);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "TOPIC_RESET|east->west|orders|2|id-2",
      severity: "critical",
      summary: "orders/2 at east was reset (topic ID changed, log end went backwards): MM2 copies 300 already-passed offsets again",
    });
    expect(findings[0]?.evidence).toMatchObject({
      detectedBy: "topic-id-changed,log-end-rewound",
      oldTopicId: "id-1",
      newTopicId: "id-2",
      previousLogEnd: "5000",
      currentLogStart: "0",
      currentLogEnd: "300",
      previousMm2Position: "4800",
      recordsToRecopy: "300",
      previousLag: "200",
      seenAt: T0 + 10_000,
    });
  });

  it("merges later signals of the same reset into the first finding, keeping its 'before' evidence", () => {
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [beforeReset] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [{ ...recreated, sourceLogEnd: 350n }] }) },
    ]);
    expect(findingsOf(second, FindingType.TOPIC_RESET).map((f) => f.key)).toEqual(["TOPIC_RESET|east->west|orders|2|id-2"]);
    const later = findingsOf(third, FindingType.TOPIC_RESET);
    expect(later.map((f) => f.key)).toEqual(["TOPIC_RESET|east->west|orders|2|id-2"]);
    expect(later[0]?.evidence).toMatchObject({
      oldTopicId: "id-1",
      previousLogEnd: "5000",
      detectedBy: "topic-id-changed,log-end-rewound,position-beyond-log-end",
    });
  });

  it("recognises a reset without topic IDs from the log end going backwards", () => {
    const noIds = { sourceTopicId: null };
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [{ ...beforeReset, ...noIds }] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...recreated, ...noIds }] }) },
    ]);
    expect(findingsOf(second, FindingType.TOPIC_RESET).map((f) => [f.key, f.evidence.detectedBy])).toEqual([
      [`TOPIC_RESET|east->west|orders|2|t${T0 + 10_000}`, "log-end-rewound"],
    ]);
  });

  it("recognises a reset without topic IDs from a stale position the new log end stays below", () => {
    // The recreated topic's log end grows (300 → 350) yet stays below the position Connect still holds for the old one.
    const noIds = { sourceTopicId: null, sourceLogEnd: 300n };
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [{ ...recreated, ...noIds }] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...recreated, ...noIds, sourceLogEnd: 350n }] }) },
    ]);
    expect(findingsOf(second, FindingType.TOPIC_RESET).map((f) => [f.key, f.evidence.detectedBy, f.evidence.recordsToRecopy])).toEqual([
      [`TOPIC_RESET|east->west|orders|2|t${T0 + 10_000}`, "position-beyond-log-end", "350"],
    ]);
  });

  describe("benign cases", () => {
    it("ignores offset syncs rewinding with the same topic ID: a worker crash re-copies what Connect had not committed", () => {
      const partition = makeFlowPartition({ sourceLogEnd: 6000n, mm2Position: 5000n, targetLogEnd: 5000n, latestSync: { upstream: 4999n, downstream: 4999n } });
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [partition] }), history: makeHistory([[4999, 4999]]) },
        {
          snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...partition, sourceLogEnd: 6100n, mm2Position: 3001n }] }),
          history: makeHistory([[4999, 4999], [3000, 5000]]),
        },
      ]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
    });

    it("ignores a small rewind from a task restart re-delivering records past the committed position", () => {
      const partition = makeFlowPartition({ sourceLogEnd: 6000n, mm2Position: 4900n, targetLogEnd: 5000n, latestSync: { upstream: 4999n, downstream: 4999n } });
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [partition] }), history: makeHistory([[4999, 4999]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...partition, mm2Position: 4951n }] }), history: makeHistory([[4999, 4999], [4950, 5000]]) },
      ]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
    });

    it("leaves a log end going back with a higher leader epoch to UNCLEAN_TRUNCATION", () => {
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ sourceTopicId: null, sourceLogEnd: 5000n, mm2Position: 4000n, sourceLeaderEpoch: 3 })] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ sourceTopicId: null, sourceLogEnd: 4900n, mm2Position: 4000n, sourceLeaderEpoch: 4 })] }) },
      ]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
    });

    it("needs MM2's position past the log end in two consecutive cycles (one can be a read-order race)", () => {
      const racing = makeFlowPartition({ sourceLogEnd: 1000n, mm2Position: 1010n });
      const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1 }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [racing] }) }]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
    });

    it("ignores an exactly-once MM2's position past the log end in every cycle while the log end keeps passing it", () => {
      // Seen for real: Connect commits an exactly-once MM2's position with each transaction and the collector reads it
      // after the source's log ends, so under 10 records/s it was past them in every cycle; the target held each
      // source record once (offsets 0–243 copied to 0–332 with transaction markers).
      const eos = { sourceLogStart: 0n, positionSource: "committed" as const };
      const [, second, third] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ ...eos, sourceLogEnd: 50n, mm2Position: 53n, committedPosition: 53n, targetLogEnd: 69n })] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ ...eos, sourceLogEnd: 101n, mm2Position: 104n, committedPosition: 104n, targetLogEnd: 138n })] }) },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [makeFlowPartition({ ...eos, sourceLogEnd: 152n, mm2Position: 155n, committedPosition: 155n, targetLogEnd: 207n })] }) },
      ]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
      expect(findingsOf(third, FindingType.TOPIC_RESET)).toEqual([]);
    });

    it("does not judge the first cycle or stale data", () => {
      const [first, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [recreated] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [beforeReset], east: { stale: true } }) },
      ]);
      expect(findingsOf(first, FindingType.TOPIC_RESET)).toEqual([]);
      expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
    });
  });
});
