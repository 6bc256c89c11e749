import { describe, expect, it } from "vitest";
import type { ConsumerGroupState, UnknownData } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { type Finding, FindingType } from "@/lib/detect/types";
import { createUnknownFindingTest } from "@/lib/detect/unknown-data";
import { findingsOf, makeCluster, makeFlowPartition, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

const thresholds = { ...defaultThresholds, eventHoldMs: 30_000, lagRecords: 500 };
const at = (cycle: number) => T0 + (cycle - 1) * 10_000;
const targetUnread = (dataAt: number): UnknownData => ({ reason: "west east.orders/2: ListOffsets: broker 2: connect ECONNREFUSED", dataAt });
const syncsUnread = (dataAt: number): UnknownData => ({ reason: "offset syncs: reading east/mm2-offset-syncs.west.internal/0: NOT_LEADER_OR_FOLLOWER", dataAt });

describe("unknown partitions: nothing fires or resolves on them", () => {
  it("keeps a DATA_LOSS finding past the event hold while its partition is unknown, unchanged, then lets it end", () => {
    const outputs = runCycles(
      [
        makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 1000n, mm2Position: 1000n })] }),
        // MM2 is paused at 1000 while the source deleted up to 1300: records 1000–1299 are lost.
        makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ sourceLogStart: 1300n, sourceLogEnd: 1500n, mm2Position: 1000n })] }),
        // The target's leader does not answer for 6 cycles (60 s > the 30 s hold). The source keeps
        // purging: judged, this would grow the loss to 1000–1799.
        ...[3, 4, 5, 6, 7, 8].map((cycle) =>
          makeSnapshot({ cycle, partitions: [makeFlowPartition({ sourceLogStart: 1800n, sourceLogEnd: 2000n, mm2Position: 1000n, targetLogEnd: null, unknown: targetUnread(at(2)) })] }),
        ),
        // Known again, MM2 resumed at the log start and caught up: no new sighting.
        makeSnapshot({ cycle: 9, partitions: [makeFlowPartition({ sourceLogStart: 1800n, sourceLogEnd: 2000n, mm2Position: 2000n, targetLogEnd: 1200n })] }),
      ].map((snapshot) => ({ snapshot })),
      thresholds,
    );
    const losses = outputs.map((o) => findingsOf(o, FindingType.DATA_LOSS).map((f) => [f.key, f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCount]));
    const held = [["DATA_LOSS|east->west|orders|2|1000", "1000", "1299", "300"]];
    expect(losses).toEqual([[], held, held, held, held, held, held, held, []]);
  });

  it("fires no DATA_LOSS on a position derived from offset syncs that could not be read", () => {
    // Connect's committed position trails at 1000 (flushed once a minute); the offset syncs prove more.
    const synced = (overrides: Parameters<typeof makeFlowPartition>[0]) => makeFlowPartition({ committedPosition: 1000n, positionSource: "offset-sync", ...overrides });
    const outputs = runCycles(
      [
        makeSnapshot({ cycle: 1, partitions: [synced({ sourceLogStart: 0n, sourceLogEnd: 1000n, mm2Position: 1000n, targetLogEnd: 1000n })] }),
        makeSnapshot({ cycle: 2, partitions: [synced({ sourceLogStart: 0n, sourceLogEnd: 1000n, mm2Position: 1000n, targetLogEnd: 1000n })] }),
        // 500 transaction markers were skipped and the sync MM2 wrote for them was not read: the position
        // derived from the older sync (999 → 999) and the target's 1500 records is 1500, not the real 2000,
        // and below a log start that moved to 1800.
        makeSnapshot({ cycle: 3, partitions: [synced({ sourceLogStart: 1800n, sourceLogEnd: 2000n, mm2Position: 1500n, targetLogEnd: 1500n, unknown: syncsUnread(at(2)) })] }),
        // The syncs are read again (1999 → 1499): the position is 2000.
        ...[4, 5].map((cycle) =>
          makeSnapshot({
            cycle,
            partitions: [synced({ sourceLogStart: 1800n, sourceLogEnd: 2000n, mm2Position: 2000n, targetLogEnd: 1500n, latestSync: { upstream: 1999n, downstream: 1499n } })],
          }),
        ),
      ].map((snapshot) => ({ snapshot })),
      thresholds,
    );
    expect(outputs.map((o) => o.findings.map((f) => f.type))).toEqual([[], [], [], [], []]);
  });

  it("carries REPLICATION_LAG while a partition of the flow is unknown, and resolves it once known data shows no lag", () => {
    const lagging = makeFlowPartition({ sourceLogEnd: 5000n, mm2Position: 4000n });
    const outputs = runCycles(
      [
        makeSnapshot({ cycle: 1, partitions: [lagging] }),
        // Connect's offsets could not be read: no position, no lag — which must not read as "caught up".
        makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ sourceLogEnd: 5100n, mm2Position: null, lag: null, unknown: { reason: "MM2's positions: HTTP 500", dataAt: at(1) } })] }),
        makeSnapshot({ cycle: 3, partitions: [makeFlowPartition({ sourceLogEnd: 5200n, mm2Position: 5200n })] }),
      ].map((snapshot) => ({ snapshot })),
      thresholds,
    );
    const lag = outputs.map((o) => findingsOf(o, FindingType.REPLICATION_LAG).map((f) => [f.key, f.evidence.totalLag]));
    expect(lag).toEqual([[["REPLICATION_LAG|east->west|records", "1000"]], [["REPLICATION_LAG|east->west|records", "1000"]], []]);
  });
});

describe("unknown groups: nothing fires or resolves on them", () => {
  const group = (groupId: string, offset: bigint, read: Pick<ConsumerGroupState, "error" | "dataAt">): ConsumerGroupState => ({
    groupId,
    state: "Stable",
    protocolType: "consumer", groupType: "classic",
    members: 2,
    offsets: [{ topic: "orders", partition: 0, offset, committedLeaderEpoch: 3 }],
    ...read,
  });
  const east = (groups: ConsumerGroupState[]) => makeCluster("east", { topics: [makeTopic("orders", [{ partition: 0, logStart: 1000n, logEnd: 5000n }])], groups });
  const unread = { error: "OffsetFetch: coordinator 1: Request timed out after 30000 ms", dataAt: T0 };

  it("keeps OFFSET_OUT_OF_RANGE while the group's offsets cannot be read, and fires none on another unread group's old offsets", () => {
    const outputs = runCycles(
      [
        makeSnapshot({ cycle: 1, clusters: [east([group("billing", 400n, { error: null, dataAt: T0 })]), makeCluster("west")] }),
        makeSnapshot({ cycle: 2, clusters: [east([group("billing", 400n, unread), group("audit", 100n, unread)]), makeCluster("west")] }),
        makeSnapshot({ cycle: 3, clusters: [east([group("billing", 4000n, { error: null, dataAt: at(3) }), group("audit", 4500n, { error: null, dataAt: at(3) })]), makeCluster("west")] }),
      ].map((snapshot) => ({ snapshot })),
      thresholds,
    );
    const found = outputs.map((o) => findingsOf(o, FindingType.OFFSET_OUT_OF_RANGE).map((f) => [f.key, f.evidence.missingRecords]));
    const billing = [["OFFSET_OUT_OF_RANGE|east|billing|below-log-start", "600"]];
    expect(found).toEqual([billing, billing, []]);
  });

  it("counts a group finding unknown where the log offsets of a partition it commits on were not read, found by number", () => {
    const committedOn = (groupId: string, topic: string, partition: number): ConsumerGroupState => ({
      ...group(groupId, 400n, { error: null, dataAt: T0 }),
      offsets: [{ topic, partition, offset: 400n, committedLeaderEpoch: 3 }],
    });
    const topics = [
      makeTopic("orders", [{ partition: 0, logStart: 0n, logEnd: 5000n }, { partition: 1, logStart: 0n, logEnd: null }]),
      // Listed out of number order: partition 0 is not at index 0.
      makeTopic("shuffled", [{ partition: 1, logStart: 0n, logEnd: 10n }, { partition: 0, logStart: null, logEnd: 10n }]),
    ];
    const groups = [committedOn("read", "orders", 0), committedOn("unread", "orders", 1), committedOn("moved", "shuffled", 0), committedOn("gone", "nope", 0)];
    const isUnknown = createUnknownFindingTest(makeSnapshot({ clusters: [makeCluster("east", { topics, groups }), makeCluster("west")] }));
    const about = (groupId: string): Finding => ({
      key: `OFFSET_OUT_OF_RANGE|east|${groupId}|below-log-start`,
      type: FindingType.OFFSET_OUT_OF_RANGE,
      severity: "warning",
      cluster: "east",
      group: groupId,
      summary: "",
      evidence: {},
      observedAt: T0,
    });
    expect(["read", "unread", "moved", "gone"].map((g) => isUnknown(about(g)))).toEqual([false, true, true, false]);
  });
});
