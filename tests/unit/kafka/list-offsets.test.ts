import { describe, expect, it } from "vitest";
import { buildListOffsetsTopics, groupByLeader, mergeOffsetResponses } from "@/lib/kafka/list-offsets";
import type { RawListOffsetsResponse } from "@/lib/kafka/types";

const parts = [
  { topic: "a", partition: 0, leader: 1 },
  { topic: "a", partition: 1, leader: 1 },
  { topic: "b", partition: 0, leader: 1 },
];

function response(entries: [string, number, { offset: bigint; leaderEpoch?: number; errorCode?: number }][]): RawListOffsetsResponse {
  const topics = new Map<string, RawListOffsetsResponse["topics"][number]>();
  for (const [name, partitionIndex, e] of entries) {
    const t = topics.get(name) ?? { name, partitions: [] };
    t.partitions.push({ partitionIndex, errorCode: e.errorCode ?? 0, timestamp: -1n, offset: e.offset, leaderEpoch: e.leaderEpoch ?? 0 });
    topics.set(name, t);
  }
  return { throttleTimeMs: 0, topics: [...topics.values()] };
}

describe("buildListOffsetsTopics", () => {
  it("puts all partitions of a topic in one entry, unfenced, at the given timestamp", () => {
    expect(buildListOffsetsTopics(parts, -2n)).toEqual([
      { name: "a", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }, { partitionIndex: 1, currentLeaderEpoch: -1, timestamp: -2n }] },
      { name: "b", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] },
    ]);
  });
});

describe("groupByLeader", () => {
  it("groups by leader, drops duplicates and sets leaderless partitions apart", () => {
    const { byLeader, leaderless } = groupByLeader([...parts, { topic: "a", partition: 0, leader: 1 }, { topic: "c", partition: 0, leader: 2 }, { topic: "d", partition: 0, leader: null }]);
    expect([...byLeader.keys()]).toEqual([1, 2]);
    expect(byLeader.get(1)).toHaveLength(3);
    expect(leaderless).toEqual([{ topic: "d", partition: 0, leader: null }]);
  });
});

describe("mergeOffsetResponses", () => {
  it("joins earliest and latest, taking the leader epoch from latest", () => {
    const earliest = response([["a", 0, { offset: 4n }], ["a", 1, { offset: 0n }], ["b", 0, { offset: 10n }]]);
    const latest = response([["a", 0, { offset: 12n, leaderEpoch: 3 }], ["a", 1, { offset: 0n, leaderEpoch: 3 }], ["b", 0, { offset: 11n, leaderEpoch: 1 }]]);
    expect(Object.fromEntries(mergeOffsetResponses(parts, earliest, latest))).toEqual({
      "a/0": { logStart: 4n, logEnd: 12n, leaderEpoch: 3 },
      "a/1": { logStart: 0n, logEnd: 0n, leaderEpoch: 3 },
      "b/0": { logStart: 10n, logEnd: 11n, leaderEpoch: 1 },
    });
  });

  it("fails only the partition with an error code or missing from a response", () => {
    const earliest = response([["a", 0, { offset: 0n }], ["a", 1, { offset: 0n, errorCode: 6 }], ["b", 0, { offset: 0n }]]);
    const latest = response([["a", 0, { offset: 5n }], ["a", 1, { offset: 5n }]]);
    expect(Object.fromEntries(mergeOffsetResponses(parts, earliest, latest))).toEqual({
      "a/0": { logStart: 0n, logEnd: 5n, leaderEpoch: 0 },
      "a/1": { error: "NOT_LEADER_OR_FOLLOWER" },
      "b/0": { error: "MISSING_FROM_RESPONSE" },
    });
  });

  it("gives every partition the broker's error when a whole request failed", () => {
    const latest = response([["a", 0, { offset: 5n }]]);
    const merged = mergeOffsetResponses(parts, { error: "broker 1: connect ECONNREFUSED" }, latest);
    expect([...merged.values()]).toEqual(Array(3).fill({ error: "broker 1: connect ECONNREFUSED" }));
  });
});
