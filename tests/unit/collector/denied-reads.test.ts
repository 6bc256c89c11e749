import { describe, expect, it } from "vitest";
import { pollCluster } from "@/lib/collector/cluster-poll";
import { probeHiddenTopics } from "@/lib/collector/hidden-topics";
import type { ClusterMetadata, ClusterReader, TopicMetadata } from "@/lib/kafka";
import { makeCluster, makeFlow } from "../detect/fixtures";
import { T0 } from "./fixtures";

const topic = (name: string, error: string | null = null): TopicMetadata => ({
  name,
  topicId: null,
  isInternal: false,
  error,
  partitions: error ? [] : [{ partition: 0, leader: 1, leaderEpoch: 0, replicas: [1], isr: [1], offlineReplicas: [], error: null }],
});

const metadataOf = (topics: TopicMetadata[]): ClusterMetadata => ({ clusterId: "c", controllerId: 1, brokers: [{ nodeId: 1, host: "h", port: 1, rack: null }], topics });

/** A reader whose broker denies what an ACL-less principal is denied: topic and broker configs, group offsets. */
function makeDenyingReader(asked: (string[] | undefined)[] = []): ClusterReader {
  const unused = () => Promise.reject(new Error("not read here"));
  return {
    alias: "east",
    readMetadata: (topics?: string[]) => {
      asked.push(topics);
      if (topics === undefined) return Promise.resolve(metadataOf([topic("orders"), topic("payments")]));
      return Promise.resolve(metadataOf(topics.map((t) => topic(t, t.startsWith("mm2-") ? "TOPIC_AUTHORIZATION_FAILED" : "UNKNOWN_TOPIC_OR_PARTITION"))));
    },
    readLogOffsets: () => Promise.resolve(new Map([["orders/0", { logStart: 0n, logEnd: 5n, leaderEpoch: 0 }], ["payments/0", { error: "TOPIC_AUTHORIZATION_FAILED" }]])),
    readTopicConfigs: (names) => Promise.resolve(new Map(names.map((n) => [n, { error: "TOPIC_AUTHORIZATION_FAILED: Topic authorization failed." }]))),
    readBrokerUncleanElection: () => Promise.reject(new Error("cluster east: DescribeConfigs (broker) failed: broker 1 config: CLUSTER_AUTHORIZATION_FAILED")),
    listGroups: () => Promise.resolve([{ groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 1 }]),
    readGroupOffsets: () => Promise.resolve(new Map([["billing", { error: "GROUP_AUTHORIZATION_FAILED" }]])),
    readEpochEndOffsets: unused,
    readEligibleLeaders: unused,
    readShareGroupOffsets: unused,
    fetchRecords: unused,
    fetchPartitions: unused,
    requestCounts: () => [],
    resetRequestCounts: () => undefined,
    close: () => Promise.resolve(),
  };
}

describe("denied reads", () => {
  it("pollCluster records each read refused for an ACL, per resource, and nothing for other failures", async () => {
    const snap = await pollCluster(makeDenyingReader(), { alias: "east", bootstrap: ["east:9092"] }, null, { refreshConfigs: true, now: T0 });
    expect(snap.denied).toEqual([
      { api: "DescribeConfigs", resourceType: "cluster", resource: "kafka-cluster", error: "CLUSTER_AUTHORIZATION_FAILED" },
      { api: "DescribeConfigs", resourceType: "topic", resource: "orders", error: "TOPIC_AUTHORIZATION_FAILED" },
      { api: "DescribeConfigs", resourceType: "topic", resource: "payments", error: "TOPIC_AUTHORIZATION_FAILED" },
      { api: "ListOffsets", resourceType: "topic", resource: "payments", error: "TOPIC_AUTHORIZATION_FAILED" },
      { api: "OffsetFetch", resourceType: "group", resource: "billing", error: "GROUP_AUTHORIZATION_FAILED" },
    ]);
    // The figures stay unknown, never a default that looks healthy.
    expect(snap.topics.map((t) => t.configs)).toEqual([null, null]);
    expect(snap.uncleanLeaderElectionDefault).toBeNull();
  });

  it("keeps a topic's DescribeConfigs denial between config refreshes, until a refresh reads the topic", async () => {
    const config = { alias: "east", bootstrap: ["east:9092"] };
    const first = await pollCluster(makeDenyingReader(), config, null, { refreshConfigs: true, now: T0 });
    const granted = { ...makeDenyingReader(), readTopicConfigs: (names: string[]) => Promise.resolve(new Map(names.map((n) => [n, { "cleanup.policy": "delete" }]))) };
    // Not a refresh: the denied topics still have no configs, so they are asked again (and now read).
    const noConfigs = { ...first, topics: first.topics.map((t) => (t.name === "orders" ? { ...t, configs: { retentionMs: null, retentionBytes: null, cleanupPolicy: "delete", uncleanLeaderElection: false, minInsyncReplicas: null } } : t)) };
    const between = await pollCluster(granted, config, noConfigs, { refreshConfigs: false, now: T0 + 1 });
    expect((between.denied ?? []).filter((d) => d.api === "DescribeConfigs" && d.resourceType === "topic").map((d) => d.resource)).toEqual(["orders"]);
    const refreshed = await pollCluster(granted, config, between, { refreshConfigs: true, now: T0 + 2 });
    expect((refreshed.denied ?? []).filter((d) => d.api === "DescribeConfigs" && d.resourceType === "topic")).toEqual([]);
  });

  it("a cluster without denials carries no denied field", async () => {
    const reader = { ...makeDenyingReader(), readTopicConfigs: () => Promise.resolve(new Map()), readBrokerUncleanElection: () => Promise.resolve(false) };
    const ok = { ...reader, readLogOffsets: () => Promise.resolve(new Map()), readGroupOffsets: () => Promise.resolve(new Map([["billing", []]])) };
    const snap = await pollCluster(ok, { alias: "east", bootstrap: ["east:9092"] }, null, { refreshConfigs: true, now: T0 });
    expect("denied" in snap).toBe(false);
  });

  it("probeHiddenTopics asks Metadata by name for MM2's internal topics the cluster did not list, and names those hidden by an ACL", async () => {
    const asked: (string[] | undefined)[] = [];
    const readers = new Map([["east", makeDenyingReader(asked)]]);
    const east = makeCluster("east", { topics: [] });
    const flow = makeFlow({ offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" }, checkpointsTopic: "east.checkpoints.internal" });
    const [probed, west] = await probeHiddenTopics([east, makeCluster("west")], [flow], readers);
    expect(asked).toEqual([["mm2-offset-syncs.west.internal"]]);
    expect(probed!.denied).toEqual([{ api: "Metadata", resourceType: "topic", resource: "mm2-offset-syncs.west.internal", error: "TOPIC_AUTHORIZATION_FAILED" }]);
    // west has no reader here: left as it was.
    expect(west!.denied).toBeUndefined();
  });
});
