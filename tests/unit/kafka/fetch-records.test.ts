import { describe, expect, it } from "vitest";
import { buildFetchTopics, reshapeFetchResponse } from "@/lib/kafka/fetch-records";
import type { RawFetchResponse } from "@/lib/kafka/types";

const items = [
  { topic: "connect-offsets", partition: 0, offset: 5n, topicId: "id-1" },
  { topic: "connect-offsets", partition: 3, offset: 0n, topicId: "id-1" },
  { topic: "heartbeats", partition: 0, offset: 9n, topicId: "id-2" },
];

describe("buildFetchTopics", () => {
  it("addresses topics by ID from Fetch v13 on, one entry per topic, unfenced", () => {
    const { topics, nameByKey } = buildFetchTopics(items, 17, 1024);
    expect(topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partition, p.fetchOffset, p.currentLeaderEpoch, p.partitionMaxBytes])])).toEqual([
      ["id-1", [[0, 5n, -1, 1024], [3, 0n, -1, 1024]]],
      ["id-2", [[0, 9n, -1, 1024]]],
    ]);
    expect(Object.fromEntries(nameByKey)).toEqual({ "id-1": "connect-offsets", "id-2": "heartbeats" });
  });

  it("addresses topics by name in Fetch v12", () => {
    expect(buildFetchTopics(items, 12, 1024).topics.map((t) => t.topicId)).toEqual(["connect-offsets", "heartbeats"]);
  });
});

describe("reshapeFetchResponse", () => {
  const partition = (partitionIndex: number, errorCode = 0) => ({ partitionIndex, errorCode, highWatermark: 10n, lastStableOffset: 10n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1 });

  it("maps answers back to topic names and marks partitions missing from the answer", () => {
    const response: RawFetchResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [{ topicId: "id-1", partitions: [partition(0), partition(3, 1)] }],
    };
    const result = reshapeFetchResponse(items, response, new Map([["id-1", "connect-offsets"], ["id-2", "heartbeats"]]));
    expect(Object.fromEntries(result)).toEqual({
      "connect-offsets/0": { records: [], highWatermark: 10n, logStartOffset: 0n, nextOffset: 5n, controlBatches: 0 },
      "connect-offsets/3": { error: "OFFSET_OUT_OF_RANGE" },
      "heartbeats/0": { error: "MISSING_FROM_RESPONSE" },
    });
  });
});
