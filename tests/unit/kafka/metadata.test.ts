import { describe, expect, it } from "vitest";
import { normalizeTopicId, reshapeMetadata } from "@/lib/kafka/metadata";
import type { RawMetadataResponse } from "@/lib/kafka/types";

function makeRaw(overrides: Partial<RawMetadataResponse> = {}): RawMetadataResponse {
  return {
    throttleTimeMs: 0,
    clusterId: "abc",
    controllerId: 2,
    brokers: [
      { nodeId: 2, host: "b2", port: 9092, rack: null },
      { nodeId: 1, host: "b1", port: 9092, rack: "r1" },
    ],
    topics: [
      {
        errorCode: 0,
        name: "orders",
        topicId: "6AE8C25A-9586-4D56-99DB-A81B81AAB55D",
        isInternal: false,
        topicAuthorizedOperations: 0,
        partitions: [
          { errorCode: 5, partitionIndex: 1, leaderId: -1, leaderEpoch: 7, replicaNodes: [2], isrNodes: [], offlineReplicas: [2] },
          { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 3, replicaNodes: [1, 2], isrNodes: [1, 2], offlineReplicas: [] },
        ],
      },
      { errorCode: 0, name: "__consumer_offsets", topicId: "00000000-0000-0000-0000-000000000000", isInternal: true, topicAuthorizedOperations: 0, partitions: [] },
    ],
    ...overrides,
  };
}

describe("reshapeMetadata", () => {
  it("maps leader -1 to null, error codes to Kafka names, and sorts brokers, topics and partitions", () => {
    const md = reshapeMetadata(makeRaw());
    expect(md.brokers.map((b) => b.nodeId)).toEqual([1, 2]);
    expect(md.controllerId).toBe(2);
    expect(md.topics.map((t) => t.name)).toEqual(["__consumer_offsets", "orders"]);
    const orders = md.topics[1]!;
    expect(orders.topicId).toBe("6ae8c25a-9586-4d56-99db-a81b81aab55d");
    expect(orders.partitions).toEqual([
      { partition: 0, leader: 1, leaderEpoch: 3, replicas: [1, 2], isr: [1, 2], offlineReplicas: [], error: null },
      { partition: 1, leader: null, leaderEpoch: 7, replicas: [2], isr: [], offlineReplicas: [2], error: "LEADER_NOT_AVAILABLE" },
    ]);
    expect(md.topics[0]).toMatchObject({ isInternal: true, topicId: null, error: null });
  });

  it("keeps a topic-level error by name", () => {
    const raw = makeRaw();
    raw.topics[0]!.errorCode = 3;
    expect(reshapeMetadata(raw).topics.find((t) => t.name === "orders")?.error).toBe("UNKNOWN_TOPIC_OR_PARTITION");
  });
});

describe("normalizeTopicId", () => {
  it("treats the zero UUID and missing IDs as null", () => {
    expect(normalizeTopicId("00000000-0000-0000-0000-000000000000")).toBeNull();
    expect(normalizeTopicId(undefined)).toBeNull();
    expect(normalizeTopicId("AB-CD")).toBe("ab-cd");
  });
});
