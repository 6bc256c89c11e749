import { describe, expect, it } from "vitest";
import { mergeListedGroups, normalizeGroupState, reshapeGroupOffsets, reshapeShareGroupOffsets } from "@/lib/kafka/groups";
import type { RawOffsetFetchResponse } from "@/lib/kafka/types";

describe("normalizeGroupState", () => {
  it("spells Kafka's group states like the Java enum", () => {
    expect(normalizeGroupState("Stable")).toBe("STABLE");
    expect(normalizeGroupState("PreparingRebalance")).toBe("PREPARING_REBALANCE");
    expect(normalizeGroupState("CompletingRebalance")).toBe("COMPLETING_REBALANCE");
    expect(normalizeGroupState("Empty")).toBe("EMPTY");
  });
});

describe("mergeListedGroups", () => {
  it("unions the groups listed by each broker", () => {
    const merged = mergeListedGroups([
      { groups: [{ groupId: "g1", protocolType: "consumer", groupState: "Stable" }] },
      { groups: [{ groupId: "g2", protocolType: "connect", groupState: "Empty" }] },
      // ListGroups v5 names the type; a KIP-848 group's states are its own.
      { groups: [{ groupId: "g3", protocolType: "consumer", groupState: "Reconciling", groupType: "Consumer" }] },
      // Kafka Streams (KIP-1071) and share (KIP-932) groups, as a Kafka 4.3.1 broker lists them.
      { groups: [{ groupId: "g4", protocolType: "streams", groupState: "NotReady", groupType: "Streams" }, { groupId: "g5", protocolType: "share", groupState: "Stable", groupType: "Share" }] },
    ]);
    expect(Object.fromEntries(merged)).toEqual({
      g1: { state: "STABLE", protocolType: "consumer", groupType: "classic" },
      g2: { state: "EMPTY", protocolType: "connect", groupType: "classic" },
      g3: { state: "RECONCILING", protocolType: "consumer", groupType: "consumer" },
      g4: { state: "NOT_READY", protocolType: "streams", groupType: "streams" },
      g5: { state: "STABLE", protocolType: "share", groupType: "share" },
    });
  });
});

describe("reshapeGroupOffsets", () => {
  const partition = (partitionIndex: number, committedOffset: bigint, errorCode = 0) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, metadata: null, errorCode });

  it("returns committed offsets with leader epochs, skipping partitions without a commit", () => {
    const response: RawOffsetFetchResponse = {
      throttleTimeMs: 0,
      groups: [{ groupId: "g", errorCode: 0, topics: [{ name: "t", partitions: [partition(1, 7n), partition(0, 5n), partition(2, -1n)] }] }],
    };
    expect(reshapeGroupOffsets(["g"], response).get("g")).toEqual([
      { topic: "t", partition: 0, offset: 5n, committedLeaderEpoch: -1 },
      { topic: "t", partition: 1, offset: 7n, committedLeaderEpoch: -1 },
    ]);
  });

  it("fails only the group with a group or partition error", () => {
    const response: RawOffsetFetchResponse = {
      throttleTimeMs: 0,
      groups: [
        { groupId: "ok", errorCode: 0, topics: [] },
        { groupId: "loading", errorCode: 14, topics: [] },
        { groupId: "bad-partition", errorCode: 0, topics: [{ name: "t", partitions: [partition(0, 1n, 88)] }] },
      ],
    };
    expect(Object.fromEntries(reshapeGroupOffsets(["ok", "loading", "bad-partition", "absent"], response))).toEqual({
      ok: [],
      loading: { error: "COORDINATOR_LOAD_IN_PROGRESS" },
      "bad-partition": { error: "t/0: UNSTABLE_OFFSET_COMMIT" },
      absent: { error: "MISSING_FROM_RESPONSE" },
    });
  });
});

describe("reshapeShareGroupOffsets", () => {
  const partition = (p: number, startOffset: bigint, lag: bigint | null, errorCode = 0) => ({ topic: "orders", partition: p, startOffset, leaderEpoch: 2, lag, errorCode });

  it("returns each share group's start offsets sorted, leaving out partitions not initialised yet (−1)", () => {
    const rows = reshapeShareGroupOffsets(["jobs"], [{ groupId: "jobs", errorCode: 0, partitions: [partition(2, 40n, 0n), partition(1, -1n, null), partition(0, 120n, 7n)] }]);
    expect(rows.get("jobs")).toEqual([
      { topic: "orders", partition: 0, startOffset: 120n, leaderEpoch: 2, lag: 7n },
      { topic: "orders", partition: 2, startOffset: 40n, leaderEpoch: 2, lag: 0n },
    ]);
  });

  it("fails only the group with a group or partition error, or missing from the answer", () => {
    const rows = reshapeShareGroupOffsets(
      ["ok", "moved", "bad-partition", "absent"],
      [
        { groupId: "ok", errorCode: 0, partitions: [] },
        { groupId: "moved", errorCode: 16, partitions: [] },
        { groupId: "bad-partition", errorCode: 0, partitions: [partition(0, 0n, 0n, 3)] },
      ],
    );
    expect(Object.fromEntries(rows)).toEqual({
      ok: [],
      moved: { error: "NOT_COORDINATOR" },
      "bad-partition": { error: "orders/0: UNKNOWN_TOPIC_OR_PARTITION" },
      absent: { error: "MISSING_FROM_RESPONSE" },
    });
  });
});
