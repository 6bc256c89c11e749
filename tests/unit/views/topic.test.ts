import { describe, expect, it } from "vitest";
import { shapePartitionRows } from "@/lib/views/topic";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

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
