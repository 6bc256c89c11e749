import { describe, expect, it } from "vitest";
import { mergeListedGroups, normalizeGroupState, reshapeGroupOffsets } from "@/lib/kafka/groups";
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
    ]);
    expect(Object.fromEntries(merged)).toEqual({
      g1: { state: "STABLE", protocolType: "consumer", groupType: "classic" },
      g2: { state: "EMPTY", protocolType: "connect", groupType: "classic" },
      g3: { state: "RECONCILING", protocolType: "consumer", groupType: "consumer" },
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
