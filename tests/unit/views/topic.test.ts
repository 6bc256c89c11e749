import { describe, expect, it } from "vitest";
import { findSourcePartitionState, shapePartitionRows, type PartitionRowView } from "@/lib/views/topic";
import { makeCluster, makeFlow, makeFlowPartition, makeSnapshot, makeTopic, T0 } from "../detect/fixtures";

describe("shapePartitionRows", () => {
  it("says why a partition is partial and how old its last good data is", () => {
    const reason = "west east.orders/2: ListOffsets: broker 2: connect ECONNREFUSED";
    const flow = makeFlow({
      partitions: [
        makeFlowPartition({ partition: 1 }),
        makeFlowPartition({ partition: 2, targetLogEnd: null, unknown: { reason, dataAt: T0 - 40_000 } }),
        makeFlowPartition({ partition: 3, mm2Position: null, unknown: { reason: "MM2's positions: HTTP 500", dataAt: null } }),
      ],
    });
    const rows = shapePartitionRows(makeSnapshot({ flows: [flow] }), flow, "orders");
    expect(rows.map((r) => [r.partition, r.partial])).toEqual([
      [1, null],
      [2, `${reason} (last read 40 s before this cycle)`],
      [3, "MM2's positions: HTTP 500 (never read)"],
    ]);
  });
});

describe("shapePartitionRows: lag in data records and target density", () => {
  const notes = (partitions: Parameters<typeof makeFlowPartition>[0][]) => {
    const flow = makeFlow({ partitions: partitions.map((p) => makeFlowPartition(p)) });
    return shapePartitionRows(makeSnapshot({ flows: [flow] }), flow, "orders").map((r) => [r.partition, r.lag, r.lagNote, r.positionNote]);
  };

  it("says how many markers the record lag leaves out, and nothing where lag and offsets agree", () => {
    // Log end 1000: an idle transactional partition ends with its commit marker at offset 999.
    const idleTransactional = { partition: 0, mm2Position: 999n, lag: 0n, offsetLag: 1n, lagBasis: "records" as const, transactionMarkersSeen: true };
    const behind = { partition: 1, sourceLogEnd: 5203n, mm2Position: 4000n, lag: 1200n, offsetLag: 1203n, lagBasis: "records" as const, transactionMarkersSeen: true };
    const plain = { partition: 2, mm2Position: 960n, lag: 40n, offsetLag: 40n, lagBasis: "records" as const };
    expect(notes([idleTransactional, behind, plain])).toEqual([
      [
        0,
        "0",
        {
          label: "excl. 1 marker",
          detail:
            "Lag counts data records read from the source log: 1 offset is past MM2's position, 1 of them holds no record MM2 copies " +
            "(transaction markers take an offset and are never copied).",
        },
        null,
      ],
      [
        1,
        "1,200",
        {
          label: "excl. 3 markers",
          detail:
            "Lag counts data records read from the source log: 1,203 offsets are past MM2's position, 3 of them hold no record MM2 copies " +
            "(transaction markers take an offset and are never copied).",
        },
        null,
      ],
      [2, "40", null, null],
    ]);
  });

  it("calls an offset lag on a partition with markers an upper bound, and an offset lag without markers nothing", () => {
    const rows = notes([
      { partition: 0, mm2Position: 993n, transactionMarkersSeen: true },
      { partition: 1, mm2Position: 993n, transactionMarkersSeen: false },
      { partition: 2, mm2Position: 1000n, transactionMarkersSeen: true },
    ]);
    expect(rows.map((r) => [r[0], (r[2] as { label: string } | null)?.label ?? null])).toEqual([
      [0, "upper bound"],
      [1, null],
      [2, null],
    ]);
  });

  it("marks MM2's position as Connect's committed one where the target is not dense, with the reason", () => {
    const issue = "the target partition holds transaction markers (MM2 in exactly-once mode or another transactional writer)";
    const flow = makeFlow({
      partitions: [
        makeFlowPartition({ partition: 0, mm2Position: 500n, committedPosition: 500n, positionSource: "committed", targetDensityIssue: issue }),
        makeFlowPartition({ partition: 1, mm2Position: 500n, committedPosition: 499n, positionSource: "offset-sync" }),
      ],
    });
    const rows = shapePartitionRows(makeSnapshot({ flows: [flow] }), flow, "orders");
    expect(rows.map((r) => [r.partition, r.mm2Position, r.committedPosition, r.positionNote])).toEqual([
      [0, "500", "500", { label: "target not dense", detail: `MM2 position is Connect's committed one, not derived from the target's log end: ${issue}` }],
      [1, "500", "499", null],
    ]);
  });
});

describe("shapePartitionRows: broker state by topic, rows once per cycle", () => {
  // Two topics with the same partition numbers: each row must get its own topic's leader, epoch and ISR.
  const flow = makeFlow({
    partitions: [
      makeFlowPartition({ topic: "payments", partition: 1, sourceLeaderEpoch: 9 }),
      makeFlowPartition({ topic: "orders", partition: 1 }),
      makeFlowPartition({ topic: "orders", partition: 0, sourceLeaderEpoch: 4 }),
      makeFlowPartition({ topic: "payments", partition: 0 }),
    ],
  });
  const topics = [
    makeTopic("orders", [{ partition: 1, leader: 3, leaderEpoch: 7, replicas: [3, 1, 2], isr: [3, 1] }]),
    makeTopic("payments", [
      { partition: 0, leader: null, leaderEpoch: 2, replicas: [1, 2], isr: [] },
      { partition: 1, leader: 2, leaderEpoch: 5, replicas: [2, 3], isr: [2, 3] },
    ]),
  ];
  const snapshot = makeSnapshot({ flows: [flow], east: { topics } });
  const broker = (rows: readonly PartitionRowView[]) =>
    rows.map((r) => [r.partition, r.leader, r.leaderEpoch, `${r.isr} / ${r.replicas}`, r.underReplicated]);

  it("takes leader, epoch and ISR from the topic's own partitions on the source cluster", () => {
    expect(broker(shapePartitionRows(snapshot, flow, "orders"))).toEqual([
      [0, "—", "4", "— / —", false],
      [1, "3", "7", "3,1 / 3,1,2", true],
    ]);
    expect(broker(shapePartitionRows(snapshot, flow, "payments"))).toEqual([
      [0, "none (offline)", "2", " / 1,2", true],
      [1, "2", "5", "2,3 / 2,3", false],
    ]);
    expect(findSourcePartitionState(snapshot, flow, "payments", 1)?.leaderEpoch).toBe(5);
    expect(findSourcePartitionState(snapshot, flow, "orders", 0)).toBeNull();
    expect(findSourcePartitionState(snapshot, flow, "refunds", 1)).toBeNull();
  });

  it("answers the same rows to every request of a cycle and new rows for the next cycle", () => {
    const first = shapePartitionRows(snapshot, flow, "orders");
    expect(shapePartitionRows(snapshot, flow, "orders")).toBe(first);
    const nextTopics = [makeTopic("orders", [{ partition: 1, leader: 1, leaderEpoch: 8, replicas: [3, 1, 2], isr: [3, 1, 2] }])];
    const moved = makeFlowPartition({ topic: "orders", partition: 1, sourceLogEnd: 2500n, mm2Position: 2400n, lag: 100n });
    const nextFlow = makeFlow({ partitions: [moved] });
    const next = makeSnapshot({ cycle: 2, flows: [nextFlow], east: { topics: nextTopics } });
    const rows = shapePartitionRows(next, nextFlow, "orders");
    const shown = rows.map((r) => [r.partition, r.sourceLogEnd, r.mm2Position, r.lag, r.lagState, r.leader, r.leaderEpoch, r.underReplicated]);
    expect(shown).toEqual([
      [1, "2,500", "2,400", "100", "behind", "1", "8", false],
    ]);
    expect(broker(shapePartitionRows(snapshot, flow, "orders"))).toEqual(broker(first));
  });

  it("shows no broker state when the source cluster is not in the snapshot", () => {
    const noSource = makeSnapshot({ flows: [flow], clusters: [makeCluster("west")] });
    expect(broker(shapePartitionRows(noSource, flow, "payments"))).toEqual([
      [0, "—", "0", "— / —", false],
      [1, "—", "9", "— / —", false],
    ]);
  });
});
