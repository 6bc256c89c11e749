import { describe, expect, it } from "vitest";
import { buildEpochEndTopics, reshapeEpochEndResponse } from "@/lib/kafka/offset-for-leader-epoch";
import type { EpochEndRequest, RawOffsetForLeaderEpochResponse } from "@/lib/kafka/types";

const requests: EpochEndRequest[] = [
  { topic: "ledger", partition: 0, leader: 1, currentLeaderEpoch: 8, leaderEpoch: 7 },
  { topic: "ledger", partition: 1, leader: 1, currentLeaderEpoch: 3, leaderEpoch: 2 },
  { topic: "orders", partition: 4, leader: 1, currentLeaderEpoch: 5, leaderEpoch: 4 },
];

describe("buildEpochEndTopics", () => {
  it("puts a topic's partitions in one entry, fenced to the current leader epoch", () => {
    expect(buildEpochEndTopics(requests)).toEqual([
      { name: "ledger", partitions: [{ partitionIndex: 0, currentLeaderEpoch: 8, leaderEpoch: 7 }, { partitionIndex: 1, currentLeaderEpoch: 3, leaderEpoch: 2 }] },
      { name: "orders", partitions: [{ partitionIndex: 4, currentLeaderEpoch: 5, leaderEpoch: 4 }] },
    ]);
  });
});

describe("reshapeEpochEndResponse", () => {
  it("keeps each partition's epoch and end offset, names errors, and marks undefined epochs and missing partitions", () => {
    const response: RawOffsetForLeaderEpochResponse = {
      throttleTimeMs: 0,
      topics: [
        {
          topic: "ledger",
          partitions: [
            // Kafka answers with the largest epoch ≤ the one asked (here 6: the leader never had 7).
            { partition: 0, errorCode: 0, leaderEpoch: 6, endOffset: 30n },
            // FENCED_LEADER_EPOCH: another election happened since the Metadata read.
            { partition: 1, errorCode: 74, leaderEpoch: -1, endOffset: -1n },
          ],
        },
      ],
    };
    expect(reshapeEpochEndResponse(requests, response)).toEqual(
      new Map([
        ["ledger/0", { leaderEpoch: 6, endOffset: 30n }],
        ["ledger/1", { error: "FENCED_LEADER_EPOCH" }],
        ["orders/4", { error: "MISSING_FROM_RESPONSE" }],
      ]),
    );
    const undefinedEpoch = { throttleTimeMs: 0, topics: [{ topic: "orders", partitions: [{ partition: 4, errorCode: 0, leaderEpoch: -1, endOffset: -1n }] }] };
    expect(reshapeEpochEndResponse(requests.slice(2), undefinedEpoch).get("orders/4")).toEqual({ error: "UNDEFINED_EPOCH" });
  });

  it("fails every partition of a broker whose request failed with that broker's error", () => {
    const failed = reshapeEpochEndResponse(requests.slice(0, 2), { error: "broker 1: connect ECONNREFUSED" });
    expect([...failed]).toEqual([
      ["ledger/0", { error: "broker 1: connect ECONNREFUSED" }],
      ["ledger/1", { error: "broker 1: connect ECONNREFUSED" }],
    ]);
  });
});
