import { describe, expect, it } from "vitest";
import type { TopicConfigs } from "@/lib/collector/types";
import { detectPostureRisks } from "@/lib/detect/posture-risks";
import { compareTopicSettings } from "@/lib/detect/topic-drift";
import { makeCluster, makeFlow, makeFlowPartition, makeSnapshot, makeStaleCluster, makeTopic, makeTopicConfigs, T0 } from "./fixtures";

/** east->west with `orders` (3 partitions at east), its remote topic `east.orders` at west as given. */
function makeDriftSnapshot(target: { configs: TopicConfigs; partitions?: number }, east = {}) {
  const partitions = [0, 1, 2].map((partition) => makeFlowPartition({ partition }));
  const orders = makeTopic("orders", [{ partition: 0 }, { partition: 1 }, { partition: 2 }], { configs: makeTopicConfigs({ minInsyncReplicas: 2 }) });
  const remote = makeTopic("east.orders", Array.from({ length: target.partitions ?? 3 }, (_, partition) => ({ partition })), { configs: target.configs });
  return makeSnapshot({
    clusters: [makeCluster("east", { topics: [orders], ...east }), makeCluster("west", { topics: [remote] })],
    flows: [makeFlow({ partitions })],
  });
}

describe("detectPostureRisks", () => {
  it("flags nothing when the target topic matches its 3-replica source", () => {
    const snapshot = makeDriftSnapshot({ configs: makeTopicConfigs({ minInsyncReplicas: 2 }) });
    expect(detectPostureRisks(snapshot, T0)).toEqual([]);
  });

  it("reports a shorter target retention and the other weaker settings as two risks with both values", () => {
    const configs = makeTopicConfigs({ retentionMs: 86_400_000n, cleanupPolicy: "compact", minInsyncReplicas: 1, maxMessageBytes: 1000 });
    const snapshot = makeDriftSnapshot({ configs, partitions: 2 }, { topics: [makeTopic("orders", [{ partition: 0 }, { partition: 1 }, { partition: 2 }], { configs: makeTopicConfigs({ minInsyncReplicas: 2, maxMessageBytes: 1_048_588 }) })] });
    const findings = detectPostureRisks(snapshot, T0);
    expect(findings.map((f) => [f.key, f.severity, f.cluster, f.summary])).toEqual([
      ["MIN_INSYNC_REPLICAS_ONE|west", "info", "west", "west: 1 replicated topic with min.insync.replicas=1 (east.orders); an acks=all write is acknowledged by the leader alone"],
      ["TARGET_RETENTION_SHORTER|east->west|orders", "warning", "west", "east.orders at west keeps less than orders at east: retention.ms 86400000 (source 604800000)"],
      [
        "TOPIC_DRIFT|east->west|orders",
        "warning",
        "west",
        "east.orders at west differs from orders at east: partitions 2 (source 3), cleanup.policy compact (source delete), max.message.bytes 1000 (source 1048588), min.insync.replicas 1 (source 2)",
      ],
    ]);
    expect(findings[2]?.evidence).toEqual({
      targetTopic: "east.orders",
      settings: "partitions,cleanup.policy,max.message.bytes,min.insync.replicas",
      "source:partitions": "3",
      "target:partitions": "2",
      "source:cleanup.policy": "delete",
      "target:cleanup.policy": "compact",
      "source:max.message.bytes": "1048588",
      "target:max.message.bytes": "1000",
      "source:min.insync.replicas": "2",
      "target:min.insync.replicas": "1",
    });
  });

  it("flags single-replica replicated topics per cluster, not topics outside every flow nor heartbeats", () => {
    const single = [{ partition: 0, replicas: [1], isr: [1] }];
    const heartbeats = makeFlowPartition({ topic: "heartbeats", partition: 0, targetTopic: "east.heartbeats" });
    const snapshot = makeSnapshot({
      clusters: [
        makeCluster("east", { topics: [makeTopic("heartbeats", single), makeTopic("orders", single), makeTopic("scratch", single)] }),
        makeCluster("west", { topics: [makeTopic("east.heartbeats", single), makeTopic("east.orders", single)] }),
      ],
      flows: [makeFlow({ partitions: [heartbeats, makeFlowPartition({ partition: 0 })] })],
    });
    expect(detectPostureRisks(snapshot, T0).map((f) => [f.key, f.evidence.topicNames])).toEqual([
      ["REPLICATION_FACTOR_ONE|east", "orders"],
      ["REPLICATION_FACTOR_ONE|west", "east.orders"],
    ]);
  });

  it("keeps judging a cluster that did not answer on the settings it last read (a risk does not vanish with the cluster)", () => {
    const snapshot = makeDriftSnapshot({ configs: makeTopicConfigs({ retentionBytes: 1_000_000n, minInsyncReplicas: 2 }) });
    const stale = { ...snapshot, clusters: [snapshot.clusters[0]!, makeStaleCluster("west", { topics: snapshot.clusters[1]!.topics })] };
    expect(detectPostureRisks(stale, T0).map((f) => f.summary)).toEqual(["east.orders at west keeps less than orders at east: retention.bytes 1000000 (source -1)"]);
  });
});

describe("compareTopicSettings", () => {
  it("judges only the partition count while a side's configs are not read, and treats -1 retention as forever", () => {
    const source = makeTopic("orders", [{ partition: 0 }], { configs: null });
    const target = makeTopic("east.orders", [{ partition: 0 }], { configs: makeTopicConfigs({ retentionMs: null }) });
    expect(compareTopicSettings(source, target).filter((s) => s.weaker)).toEqual([]);
    expect(compareTopicSettings(source, target).find((s) => s.setting === "retention.ms")).toEqual({ setting: "retention.ms", source: null, target: "-1", weaker: false });
    const forever = makeTopic("orders", [{ partition: 0 }], { configs: makeTopicConfigs({ retentionMs: null, cleanupPolicy: "delete,compact" }) });
    const week = makeTopic("east.orders", [{ partition: 0 }], { configs: makeTopicConfigs({ cleanupPolicy: "compact,delete" }) });
    expect(compareTopicSettings(forever, week).filter((s) => s.weaker)).toEqual([{ setting: "retention.ms", source: "-1", target: "604800000", weaker: true }]);
  });
});
