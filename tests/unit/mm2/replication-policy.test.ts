import { describe, expect, it } from "vitest";
import {
  createDefaultReplicationPolicy,
  createIdentityReplicationPolicy,
  locateOffsetSyncsTopic,
  nameDedicatedModeTopics,
  nameTargetTopics,
} from "@/lib/mm2/replication-policy";

describe("DefaultReplicationPolicy", () => {
  const policy = createDefaultReplicationPolicy();

  it("prefixes remote topics with the source alias and reverses it", () => {
    expect(policy.formatRemoteTopic("east", "orders")).toBe("east.orders");
    expect(policy.topicSource("east.orders")).toBe("east");
    expect(policy.upstreamTopic("east.orders")).toBe("orders");
    expect(policy.topicSource("orders")).toBeNull();
    expect(policy.upstreamTopic("orders")).toBeNull();
  });

  it("follows several hops back to the original topic", () => {
    expect(policy.upstreamTopic("west.east.orders")).toBe("east.orders");
    expect(policy.originalTopic("west.east.orders")).toBe("orders");
    expect(policy.originalTopic("orders")).toBe("orders");
  });

  it("splits like Java's Pattern.split, dropping trailing empty parts", () => {
    expect(policy.topicSource("east.")).toBeNull();
    expect(policy.topicSource(".orders")).toBe("");
    expect(policy.topicSource("a..b")).toBe("a");
    expect(policy.topicSource("...")).toBeNull();
    expect(policy.topicSource("")).toBeNull();
  });

  it("honours a custom separator for remote and internal topics", () => {
    const dashed = createDefaultReplicationPolicy({ separator: "__" });
    expect(dashed.formatRemoteTopic("east", "orders")).toBe("east__orders");
    expect(dashed.upstreamTopic("east__orders")).toBe("orders");
    expect(dashed.offsetSyncsTopic("west")).toBe("mm2-offset-syncs__west__internal");
    expect(dashed.checkpointsTopic("east")).toBe("east__checkpoints__internal");
    const legacyInternal = createDefaultReplicationPolicy({ separator: "__", internalTopicSeparatorEnabled: false });
    expect(legacyInternal.offsetSyncsTopic("west")).toBe("mm2-offset-syncs.west.internal");
    expect(() => createDefaultReplicationPolicy({ separator: "" })).toThrow(RangeError);
  });

  it("names the internal topics", () => {
    expect(policy.offsetSyncsTopic("west")).toBe("mm2-offset-syncs.west.internal");
    expect(policy.checkpointsTopic("east")).toBe("east.checkpoints.internal");
    expect(policy.heartbeatsTopic()).toBe("heartbeats");
  });

  it("recognises heartbeats topics after any number of hops", () => {
    expect(policy.isHeartbeatsTopic("heartbeats")).toBe(true);
    expect(policy.isHeartbeatsTopic("east.heartbeats")).toBe(true);
    expect(policy.isHeartbeatsTopic("west.east.heartbeats")).toBe(true);
    expect(policy.isHeartbeatsTopic("heartbeats-old")).toBe(false);
  });

  it("treats every .internal and -internal topic as internal under the Kafka 3 rule", () => {
    const internal = [
      "mm2-offset-syncs.west.internal",
      "east.checkpoints.internal",
      "mm2-offsets.east.internal",
      "connect-offsets-internal",
      "orders.internal",
      "__consumer_offsets",
      ".hidden",
    ];
    for (const topic of internal) {
      expect(policy.isInternalTopic(topic), topic).toBe(true);
    }
    expect(policy.isInternalTopic("orders")).toBe(false);
    expect(policy.isInternalTopic("heartbeats")).toBe(false);
    expect(policy.isCheckpointsTopic("east.checkpoints.internal")).toBe(true);
  });

  it("replicates user topics that only look internal under the Kafka 4 rule (KAFKA-17200)", () => {
    const kafka4 = createDefaultReplicationPolicy({ internalTopicRule: "kafka-4" });
    expect(kafka4.isInternalTopic("orders.internal")).toBe(false);
    expect(kafka4.isInternalTopic("connect-offsets-internal")).toBe(false);
    expect(kafka4.isInternalTopic("mm2-status.east.internal")).toBe(true);
    expect(kafka4.isInternalTopic("east.checkpoints.internal")).toBe(true);
    expect(kafka4.isInternalTopic("__consumer_offsets")).toBe(true);
    expect(kafka4.isMM2InternalTopic("mm2-offset-syncs.west.internal")).toBe(true);
  });
});

describe("IdentityReplicationPolicy", () => {
  const policy = createIdentityReplicationPolicy({ sourceClusterAlias: "east" });

  it("keeps topic names and reports the configured source alias", () => {
    expect(policy.formatRemoteTopic("east", "orders")).toBe("orders");
    expect(policy.upstreamTopic("orders")).toBe("orders");
    expect(policy.topicSource("orders")).toBe("east");
    expect(policy.originalTopic("orders")).toBe("orders");
    expect(createIdentityReplicationPolicy().topicSource("orders")).toBeNull();
  });

  it("still renames heartbeats like the default policy", () => {
    expect(policy.formatRemoteTopic("east", "heartbeats")).toBe("east.heartbeats");
    expect(policy.topicSource("east.heartbeats")).toBe("east");
    expect(policy.upstreamTopic("east.heartbeats")).toBe("heartbeats");
    expect(policy.isHeartbeatsTopic("east.heartbeats")).toBe(true);
  });

  it("shares the default policy's internal topic names", () => {
    expect(policy.checkpointsTopic("east")).toBe("east.checkpoints.internal");
    expect(policy.kind).toBe("identity");
  });
});

describe("internal topic locations", () => {
  const policy = createDefaultReplicationPolicy();

  it("puts the offset-syncs topic on the source, named after the target, by default", () => {
    expect(locateOffsetSyncsTopic(policy, { source: "east", target: "west" })).toEqual({
      cluster: "source",
      topic: "mm2-offset-syncs.west.internal",
    });
  });

  it("puts it on the target, named after the source, with offset-syncs.topic.location=target", () => {
    expect(locateOffsetSyncsTopic(policy, { source: "east", target: "west", location: "target" })).toEqual({
      cluster: "target",
      topic: "mm2-offset-syncs.east.internal",
    });
  });

  it("names a flow's checkpoints and replicated heartbeats on the target, and dedicated-mode Connect topics", () => {
    expect(nameTargetTopics(policy, "east")).toEqual({ checkpoints: "east.checkpoints.internal", heartbeats: "east.heartbeats" });
    expect(nameDedicatedModeTopics("east")).toEqual({
      offsets: "mm2-offsets.east.internal",
      status: "mm2-status.east.internal",
      configs: "mm2-configs.east.internal",
    });
  });
});
