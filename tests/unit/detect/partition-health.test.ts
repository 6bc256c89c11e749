import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, makeTopicConfigs, runCycles, T0 } from "./fixtures";

describe("partition health", () => {
  it("flags topics with unclean leader election enabled, by topic config or by broker default", () => {
    const east = makeCluster("east", {
      uncleanLeaderElectionDefault: true,
      topics: [
        makeTopic("orders", [{}], { configs: makeTopicConfigs({ uncleanLeaderElection: true }) }),
        makeTopic("audit", [{}], { configs: makeTopicConfigs({ uncleanLeaderElection: false }) }),
        makeTopic("clicks", [{}], { configs: null }),
        makeTopic("__consumer_offsets", [{}], { internal: true, configs: null }),
      ],
    });
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east, makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.UNCLEAN_ELECTION_ENABLED)).toEqual([
      {
        key: "UNCLEAN_ELECTION_ENABLED|east",
        type: "UNCLEAN_ELECTION_ENABLED",
        severity: "warning",
        cluster: "east",
        summary: "east: unclean leader election is enabled for 2 topics (orders, clicks); an unclean election loses acknowledged records",
        evidence: { topics: 2, topicNames: "orders,clicks", brokerDefault: true },
        observedAt: T0,
      },
    ]);
  });

  it("reports under-replicated and offline partitions per topic", () => {
    const east = makeCluster("east", {
      topics: [
        makeTopic("orders", [
          { partition: 0 },
          { partition: 1, isr: [1, 2] },
          { partition: 2, isr: [1] },
          { partition: 3, leader: null, isr: [] },
        ]),
      ],
    });
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east, makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.UNDER_REPLICATED).map((f) => [f.key, f.summary, f.evidence])).toEqual([
      [
        "UNDER_REPLICATED|east|orders",
        "orders at east: 2 of 4 partitions have fewer in-sync replicas than replicas (partitions 1, 2)",
        { partitions: 2, partitionIds: "1,2", smallestIsr: 1, replicationFactor: 3 },
      ],
    ]);
    expect(findingsOf(output, FindingType.OFFLINE).map((f) => [f.key, f.severity, f.partition, f.summary])).toEqual([
      ["OFFLINE|east|orders", "critical", 3, "orders at east: 1 of 4 partitions have no leader (partitions 3)"],
    ]);
  });

  it("keeps an OFFLINE finding while the cluster is unreachable, and drops it once healthy data arrives", () => {
    const offline = makeCluster("east", { topics: [makeTopic("orders", [{ partition: 0, leader: null, isr: [] }])] });
    const healthy = makeCluster("east", { topics: [makeTopic("orders", [{ partition: 0 }])] });
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [offline, makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [{ ...healthy, reachable: false, stale: true }, makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 3, clusters: [healthy, makeCluster("west")] }) },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.OFFLINE).length)).toEqual([1, 1, 0]);
  });
});
