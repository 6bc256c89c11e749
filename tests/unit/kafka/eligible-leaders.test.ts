import { describe, expect, it } from "vitest";
import { reshapeEligibleLeaders } from "@/lib/kafka/eligible-leaders";
import type { RawDescribeTopicPartitionsResponse } from "@/lib/kafka/types";

const partition = (partitionIndex: number, eligibleLeaderReplicas: number[], errorCode = 0) => ({
  errorCode,
  partitionIndex,
  leaderId: 2,
  leaderEpoch: 4,
  replicaNodes: [2, 1, 3],
  isrNodes: [2],
  eligibleLeaderReplicas,
  lastKnownElr: [],
  offlineReplicas: [],
});

describe("reshapeEligibleLeaders", () => {
  it("keys each described partition's sorted ELR, leaving out failed partitions and topics", () => {
    const response: RawDescribeTopicPartitionsResponse = {
      throttleTimeMs: 0,
      topics: [
        { errorCode: 0, name: "ledger", topicId: "t-1", isInternal: false, partitions: [partition(0, [3, 1]), partition(1, []), partition(2, [], 3)], topicAuthorizedOperations: 0 },
        { errorCode: 3, name: "gone", topicId: "t-2", isInternal: false, partitions: [], topicAuthorizedOperations: 0 },
      ],
    };
    expect(reshapeEligibleLeaders(response)).toEqual(
      new Map([
        ["ledger/0", [1, 3]],
        ["ledger/1", []],
      ]),
    );
  });
});
