import { describe, expect, it } from "vitest";
import type { FlowCoverageReading } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeFlow, makeFlowPartition, makeSnapshot, makeStaleCluster, makeTopic, runCycles, T0 } from "./fixtures";

/** The coverage the collector reads for `topics.exclude = orders, payments`: only heartbeats left in the flow. */
const nothingMatched: FlowCoverageReading = {
  filterKnown: true,
  matchedByFilter: 0,
  unmatched: [
    { topic: "orders", reason: "excluded by topics.exclude", internal: false },
    { topic: "payments", reason: "excluded by topics.exclude", internal: false },
    { topic: "mm2-offset-syncs.west.internal", reason: "an internal topic for the replication policy", internal: true },
  ],
  missingOnTarget: [],
  targetKnown: true,
};

function makeCoverageSnapshot(cycle: number, coverage: FlowCoverageReading, west = makeCluster("west")) {
  const heartbeats = makeFlowPartition({ topic: "heartbeats", partition: 0, targetTopic: "east.heartbeats" });
  return makeSnapshot({ cycle, flows: [makeFlow({ partitions: [heartbeats], coverage })], clusters: [makeCluster("east", { topics: [makeTopic("orders")] }), west] });
}

describe("TOPIC_FILTER_MATCHES_NOTHING", () => {
  it("warns when the known filter takes no source topic besides heartbeats, naming the rule", () => {
    const [out] = runCycles([{ snapshot: makeCoverageSnapshot(1, nothingMatched) }]);
    expect(findingsOf(out, FindingType.TOPIC_FILTER_MATCHES_NOTHING).map((f) => [f.key, f.severity, f.summary, f.evidence])).toEqual([
      [
        "TOPIC_FILTER_MATCHES_NOTHING|east->west",
        "warning",
        "MM2's topic filter of east->west (topics .*) matches none of the 2 topics on east (orders, payments: excluded by topics.exclude): the flow copies no data",
        { topicsFilter: ".*", sourceTopics: 2, topicNames: "orders,payments", reasons: "excluded by topics.exclude" },
      ],
    ]);
  });

  it("stays quiet while a connector's filter is unknown, and while coverage was not read", () => {
    const unknown = { ...nothingMatched, filterKnown: false };
    const outputs = runCycles([{ snapshot: makeCoverageSnapshot(1, unknown) }, { snapshot: makeSnapshot({ cycle: 2 }) }]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_FILTER_MATCHES_NOTHING).length)).toEqual([0, 0]);
  });

  it("keeps the warning while the target does not answer, and resolves once the filter matches a topic", () => {
    const outputs = runCycles([
      { snapshot: makeCoverageSnapshot(1, nothingMatched) },
      { snapshot: makeCoverageSnapshot(2, nothingMatched, makeStaleCluster("west")) },
      { snapshot: makeCoverageSnapshot(3, { ...nothingMatched, matchedByFilter: 1, unmatched: [] }) },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_FILTER_MATCHES_NOTHING).length)).toEqual([1, 1, 0]);
  });
});

describe("TOPIC_MISSING_ON_TARGET", () => {
  const thresholds = { ...defaultThresholds, targetTopicMissingMs: 300_000 };
  const missing = (since: number): FlowCoverageReading => ({
    filterKnown: true,
    matchedByFilter: 1,
    unmatched: [],
    missingOnTarget: [{ topic: "orders", targetTopic: "east.orders", since }],
    targetKnown: true,
  });

  it("is quiet for a new topic MM2 has not created yet, and warns once it has been missing past the threshold", () => {
    const at = (cycle: number, takenAt: number) => ({ snapshot: { ...makeCoverageSnapshot(cycle, missing(T0)), takenAt }, now: takenAt });
    const outputs = runCycles([at(1, T0), at(2, T0 + 299_999), at(3, T0 + 300_000)], thresholds);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).length)).toEqual([0, 0, 1]);
    expect(findingsOf(outputs[2], FindingType.TOPIC_MISSING_ON_TARGET).map((f) => [f.key, f.severity, f.cluster, f.summary, f.evidence])).toEqual([
      [
        "TOPIC_MISSING_ON_TARGET|east->west|orders",
        "warning",
        "west",
        "orders is in the flow east->west but east.orders has been missing on west for ~5 min (since 03:00 UTC): MM2 copies none of its records",
        { targetTopic: "east.orders", missingSince: T0, missingForMs: 300_000, thresholdMs: 300_000 },
      ],
    ]);
  });

  it("resolves once the target topic exists", () => {
    const created = { ...missing(T0), missingOnTarget: [] };
    const outputs = runCycles(
      [
        { snapshot: { ...makeCoverageSnapshot(1, missing(T0)), takenAt: T0 + 400_000 } },
        { snapshot: { ...makeCoverageSnapshot(2, created), takenAt: T0 + 410_000 } },
      ],
      thresholds,
    );
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).length)).toEqual([1, 0]);
  });
});

describe("TOPIC_MISSING_ON_TARGET for partitions added at the source", () => {
  const thresholds = { ...defaultThresholds, targetTopicMissingMs: 60_000 };
  /** orders grew from 2 to 4 partitions at T0; east.orders still has 2 until MM2's next topic refresh. */
  const grown = (partitions: number[]): FlowCoverageReading => ({
    filterKnown: true,
    matchedByFilter: 1,
    unmatched: [],
    missingOnTarget: [],
    partitionsMissingOnTarget: partitions.length === 0 ? [] : [{ topic: "orders", targetTopic: "east.orders", partitions, since: T0 }],
    targetKnown: true,
  });
  const at = (cycle: number, takenAt: number, partitions: number[]) => ({ snapshot: { ...makeCoverageSnapshot(cycle, grown(partitions)), takenAt }, now: takenAt });

  it("is quiet within MM2's refresh, warns with the exact partitions once past the threshold, resolves once MM2 follows", () => {
    const outputs = runCycles([at(1, T0, [2, 3]), at(2, T0 + 59_999, [2, 3]), at(3, T0 + 60_000, [2, 3]), at(4, T0 + 65_000, [])], thresholds);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).length)).toEqual([0, 0, 1, 0]);
    expect(findingsOf(outputs[2], FindingType.TOPIC_MISSING_ON_TARGET).map((f) => [f.key, f.severity, f.cluster, f.topic, f.summary, f.evidence])).toEqual([
      [
        "TOPIC_MISSING_ON_TARGET|east->west|orders",
        "warning",
        "west",
        "orders",
        "partitions 2, 3 of orders have had no partition in east.orders on west for ~1 min (since 03:00 UTC) in the flow east->west: " +
          "MM2 has not followed the source's new partition count and copies none of their records",
        { targetTopic: "east.orders", missingPartitions: "2,3", missingSince: T0, missingForMs: 60_000, thresholdMs: 60_000 },
      ],
    ]);
  });

  it("keeps the warning while the target does not answer", () => {
    const outputs = runCycles(
      [at(1, T0 + 60_000, [2]), { snapshot: { ...makeCoverageSnapshot(2, grown([2]), makeStaleCluster("west")), takenAt: T0 + 70_000 }, now: T0 + 70_000 }],
      thresholds,
    );
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).map((f) => [f.key, f.evidence.missingPartitions]))).toEqual([
      [["TOPIC_MISSING_ON_TARGET|east->west|orders", "2"]],
      [["TOPIC_MISSING_ON_TARGET|east->west|orders", "2"]],
    ]);
  });
});

describe("TOPIC_MISSING_ON_TARGET with a long MM2 topic refresh", () => {
  const coverage: FlowCoverageReading = {
    filterKnown: true,
    matchedByFilter: 1,
    unmatched: [],
    missingOnTarget: [{ topic: "orders", targetTopic: "east.orders", since: T0 }],
    partitionsMissingOnTarget: [{ topic: "payments", targetTopic: "east.payments", partitions: [3], since: T0 }],
    targetKnown: true,
  };
  const at = (cycle: number, takenAt: number, topicRefreshMs: number | null) => {
    const heartbeats = makeFlowPartition({ topic: "heartbeats", partition: 0, targetTopic: "east.heartbeats" });
    const flows = [makeFlow({ partitions: [heartbeats], coverage, topicRefreshMs })];
    return { snapshot: makeSnapshot({ cycle, takenAt, flows, clusters: [makeCluster("east"), makeCluster("west")] }), now: takenAt };
  };

  it("waits twice the connector's refresh when that is longer than targetTopicMissingMs (a refresh every hour)", () => {
    const outputs = runCycles([at(1, T0 + 900_000, 3_600_000), at(2, T0 + 7_199_999, 3_600_000), at(3, T0 + 7_200_000, 3_600_000)]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).map((f) => [f.topic, f.evidence.thresholdMs]))).toEqual([
      [],
      [],
      [["orders", 7_200_000], ["payments", 7_200_000]],
    ]);
  });

  it("keeps targetTopicMissingMs when the refresh is short or off everywhere (MM2 then follows only on restart)", () => {
    const outputs = runCycles([at(1, T0 + 900_000, 20_000), at(2, T0 + 900_000, null)]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TOPIC_MISSING_ON_TARGET).map((f) => [f.topic, f.evidence.thresholdMs]))).toEqual([
      [["orders", 900_000], ["payments", 900_000]],
      [["orders", 900_000], ["payments", 900_000]],
    ]);
  });
});
