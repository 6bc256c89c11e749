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
