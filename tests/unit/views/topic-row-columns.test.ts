import { describe, expect, it } from "vitest";
import { shapePartitionRows } from "@/lib/views/topic";
import { packPartitionRows, unpackPartitionRows } from "@/lib/views/topic-row-columns";
import { generateSyntheticPartitionRows } from "@/lib/views/topic-synthetic";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

describe("packPartitionRows / unpackPartitionRows", () => {
  it("gives back every row field by field, notes and partial reasons included", () => {
    const flow = makeFlow({
      partitions: [
        makeFlowPartition({ partition: 0 }),
        makeFlowPartition({ partition: 1, targetLogEnd: null, unknown: { reason: "ListOffsets: broker 2 down", dataAt: T0 - 40_000 } }),
        makeFlowPartition({ partition: 2, targetDensityIssue: "compacted target" }),
      ],
    });
    const rows = shapePartitionRows(makeSnapshot({ flows: [flow] }), flow, "orders");
    expect(rows.map((r) => r.partial !== null || r.positionNote !== null)).toEqual([false, true, true]);
    expect(unpackPartitionRows(packPartitionRows(rows))).toEqual(rows);
  });

  it("names each field once: 50 rows as columns are less than half the JSON of the rows as objects", () => {
    const rows = generateSyntheticPartitionRows(50);
    const packed = packPartitionRows(rows);
    expect(unpackPartitionRows(packed)).toEqual(rows);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(rows).length / 2);
  });

  it("keeps a note only for the rows that have one, by row index", () => {
    const rows = generateSyntheticPartitionRows(3).map((r, i) => (i === 1 ? { ...r, lagNote: { label: "upper bound", detail: "why" } } : r));
    const packed = packPartitionRows(rows);
    expect(packed.lagNote).toEqual({ 1: { label: "upper bound", detail: "why" } });
    expect(packed.partial).toEqual({});
    expect(unpackPartitionRows(packed)[1]!.lagNote).toEqual({ label: "upper bound", detail: "why" });
  });

  it("packs an empty topic as zero rows", () => {
    expect(unpackPartitionRows(packPartitionRows([]))).toEqual([]);
  });

  it("packs a cycle's rows of a topic once: every request of the cycle gets the same columns", () => {
    const rows = generateSyntheticPartitionRows(2);
    expect(packPartitionRows(rows)).toBe(packPartitionRows(rows));
  });
});
