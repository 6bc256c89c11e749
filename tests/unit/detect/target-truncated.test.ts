import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeFlow, makeFlowPartition, makeHistory, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

describe("TARGET_TRUNCATED", () => {
  it("reports the target log end going backwards with the number of records gone", () => {
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ targetLogEnd: 5000n })] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ targetLogEnd: 4000n })] }) },
    ]);
    const findings = findingsOf(second, FindingType.TARGET_TRUNCATED);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "TARGET_TRUNCATED|east->west|east.orders|2|4000",
      severity: "critical",
      cluster: "west",
      topic: "east.orders",
      partition: 2,
      summary: "east.orders/2 at west was truncated: log end fell from 5000 to 4000 (1,000 records gone)",
    });
    expect(findings[0]?.evidence).toMatchObject({
      detectedBy: "target-log-end-rewound",
      previousTargetLogEnd: "5000",
      targetLogEnd: "4000",
      removedRecords: "1000",
      targetTopicRecreated: null,
      seenAt: T0 + 10_000,
    });
  });

  it("says when the target topic was recreated", () => {
    const west = (topicId: string) => ({ topics: [makeTopic("east.orders", [{ partition: 2 }], { topicId })] });
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, west: west("t-1"), partitions: [makeFlowPartition({ targetLogEnd: 5000n })] }) },
      { snapshot: makeSnapshot({ cycle: 2, west: west("t-2"), partitions: [makeFlowPartition({ targetLogEnd: 10n })] }) },
    ]);
    expect(findingsOf(second, FindingType.TARGET_TRUNCATED)[0]?.evidence.targetTopicRecreated).toBe(true);
  });

  it("reports offset syncs whose downstream went backwards and merges the later log-end sighting", () => {
    const partition = makeFlowPartition({ sourceLogEnd: 2000n, mm2Position: 1000n, targetLogEnd: 5000n, latestSync: { upstream: 999n, downstream: 4999n } });
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [partition] }), history: makeHistory([[999, 4999]]) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...partition, mm2Position: 1001n }] }), history: makeHistory([[999, 4999], [1000, 20]]) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [{ ...partition, mm2Position: 1001n, targetLogEnd: 21n }] }), history: makeHistory([[999, 4999], [1000, 20]]) },
    ]);
    expect(findingsOf(second, FindingType.TARGET_TRUNCATED).map((f) => [f.key, f.evidence.syncFromDownstream, f.evidence.syncToDownstream])).toEqual([
      ["TARGET_TRUNCATED|east->west|east.orders|2|20", "4999", "20"],
    ]);
    const merged = findingsOf(third, FindingType.TARGET_TRUNCATED);
    expect(merged.map((f) => [f.key, f.evidence.detectedBy, f.evidence.removedRecords])).toEqual([
      ["TARGET_TRUNCATED|east->west|east.orders|2|20", "offset-sync-downstream-rewound,target-log-end-rewound", "4979"],
    ]);
  });

  it("ignores a growing target, the first cycle and a stale target cluster", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ targetLogEnd: 5000n })] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ targetLogEnd: 5100n })] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [makeFlowPartition({ targetLogEnd: 10n })], clusters: [makeCluster("east"), makeCluster("west", { stale: true })] }) },
    ]);
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TARGET_TRUNCATED))).toEqual([]);
  });
});

describe("offset syncs of heartbeats in a flow split over two MirrorSourceConnectors", () => {
  // The bench (2026-12-02, load 13): a second connector of east->west copied heartbeats 0–75 again into
  // east.heartbeats (offsets 75–150) while the first went on: syncs 74→74, 75→151 (first), 75→150 (second), 79→155.
  const heartbeats = makeFlowPartition({ topic: "heartbeats", targetTopic: "east.heartbeats", partition: 0, sourceLogEnd: 90n, mm2Position: 90n, targetLogEnd: 166n, latestSync: { upstream: 79n, downstream: 155n } });
  const syncs: [number, number][] = [[74, 74], [75, 151], [75, 150], [79, 155]];
  const cyclesWith = (sources: string[]) => {
    const flows = () => [makeFlow({ partitions: [heartbeats], connectors: { ...makeFlow().connectors, sources } })];
    return runCycles([
      { snapshot: makeSnapshot({ cycle: 1, flows: flows() }), history: makeHistory(syncs.slice(0, 1), "heartbeats", 0) },
      { snapshot: makeSnapshot({ cycle: 2, flows: flows() }), history: makeHistory(syncs, "heartbeats", 0) },
    ]);
  };
  const eventsOf = (outputs: ReturnType<typeof runCycles>) => outputs[1]!.findings.filter((f) => f.topic?.endsWith("heartbeats")).map((f) => f.type);

  it("are not judged: two writers interleave them", () => {
    expect(eventsOf(cyclesWith(["mm2-source", "mm2-source-split"]))).toEqual([]);
  });

  it("are judged with one connector, where a downstream rewind is a truncated target", () => {
    expect(eventsOf(cyclesWith(["mm2-source"]))).toContain(FindingType.TARGET_TRUNCATED);
  });
});
