import { describe, expect, it } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { flowPartitionKey } from "@/lib/collector/types";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";

const FLOW = "east->west";
const next = T0 + 10_000;
const source = () => makeCluster("east", [makeTopic("orders", [{ logEnd: 1000n }, { logEnd: 500n }])]);
const target = () => makeCluster("west", [makeTopic("east.orders", [{ logEnd: 1000n }, { logEnd: 500n }])]);
const positions = new Map([
  ["orders/0", 999n],
  ["orders/1", 499n],
]);

describe("buildFlow marks unknown partitions", () => {
  it("marks none when every read succeeded", () => {
    const flow = buildFlow(makeDefinition(), source(), target(), makeReadings({ positions }), T0);
    expect(flow.partitions.map((p) => p.unknown)).toEqual([null, null]);
  });

  it("marks only the partition whose target ListOffsets failed, and dates its data to the previous cycle", () => {
    const previous = buildFlow(makeDefinition(), source(), target(), makeReadings({ positions }), T0);
    const west = makeCluster("west", [makeTopic("east.orders", [{ logEnd: 1000n }, { logStart: null, logEnd: null, error: "ListOffsets: broker 2: connect ECONNREFUSED" }])]);
    const flow = buildFlow(makeDefinition(), source(), west, makeReadings({ positions }), next, { flow: previous, takenAt: T0 });
    expect(flow.partitions.map((p) => p.unknown)).toEqual([null, { reason: "west east.orders/1: ListOffsets: broker 2: connect ECONNREFUSED", dataAt: T0 }]);
    // Still unknown a cycle later: the last good data stays the same.
    const later = buildFlow(makeDefinition(), source(), west, makeReadings({ positions }), next + 10_000, { flow, takenAt: next });
    expect(later.partitions[1]?.unknown).toEqual({ reason: "west east.orders/1: ListOffsets: broker 2: connect ECONNREFUSED", dataAt: T0 });
  });

  it("does not mark a partition whose remote topic MM2 has not created yet", () => {
    const flow = buildFlow(makeDefinition(), source(), makeCluster("west"), makeReadings({ positions }), T0);
    expect(flow.partitions.map((p) => [p.targetLogEnd, p.unknown])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it("marks partitions whose position would come from Connect when Connect's offsets could not be read, not those the syncs place", () => {
    const syncHistory = new Map([[flowPartitionKey(FLOW, "orders", 0), [{ upstream: 899n, downstream: 899n }]]]);
    const failures = { positionsError: "MM2 positions from Connect: GET /connectors/mm2-source/offsets: HTTP 500", syncsError: null };
    const flow = buildFlow(makeDefinition(), source(), target(), makeReadings({ positions: null, syncHistory, failures }), T0);
    expect(flow.partitions.map((p) => [p.partition, p.mm2Position, p.positionSource, p.unknown])).toEqual([
      [0, 1000n, "offset-sync", null],
      [1, null, null, { reason: "MM2's positions: MM2 positions from Connect: GET /connectors/mm2-source/offsets: HTTP 500", dataAt: null }],
    ]);
  });

  it("marks partitions placed by the offset syncs when the syncs topic could not be read", () => {
    const syncHistory = new Map([[flowPartitionKey(FLOW, "orders", 0), [{ upstream: 899n, downstream: 899n }]]]);
    const failures = { positionsError: null, syncsError: "reading east/mm2-offset-syncs.west.internal/0: NOT_LEADER_OR_FOLLOWER" };
    const flow = buildFlow(makeDefinition(), source(), target(), makeReadings({ positions: new Map([["orders/1", 499n]]), syncHistory, failures }), T0);
    expect(flow.partitions.map((p) => [p.partition, p.positionSource, p.unknown?.reason ?? null])).toEqual([
      [0, "offset-sync", "offset syncs: reading east/mm2-offset-syncs.west.internal/0: NOT_LEADER_OR_FOLLOWER"],
      [1, "committed", null],
    ]);
  });

  it("marks every partition of a flow whose cluster did not answer, with the cluster's error", () => {
    const previous = buildFlow(makeDefinition(), source(), target(), makeReadings({ positions }), T0);
    const west = makeCluster("west", target().topics, { reachable: false, stale: true, error: "connect ECONNREFUSED 10.0.0.7:9092", dataAt: T0 });
    const flow = buildFlow(makeDefinition(), source(), west, makeReadings({ positions }), next, { flow: previous, takenAt: T0 });
    expect(flow.partitions.map((p) => p.unknown)).toEqual([
      { reason: "west unreachable: connect ECONNREFUSED 10.0.0.7:9092", dataAt: T0 },
      { reason: "west unreachable: connect ECONNREFUSED 10.0.0.7:9092", dataAt: T0 },
    ]);
  });
});
