import { describe, expect, it } from "vitest";
import type { Flow } from "@/lib/collector/types";
import { listPartitionBatch } from "@/lib/store/series";
import { PartitionBatchKeys } from "@/lib/store/partition-batch-keys";
import { makeFlow, makeFlowPartition } from "../translation/fixtures";

/** A flow of `id` listing these topic/partition pairs, each with fresh partition objects (a new cycle's). */
const flowOf = (id: string, pairs: [string, number][]): Flow =>
  makeFlow({ id, partitions: pairs.map(([topic, partition]) => makeFlowPartition({ topic, partition })) });

describe("the partition batch's key columns (PartitionBatchKeys)", () => {
  it("are the same arrays while the flow lists the same partitions in the same order, and listed again otherwise", () => {
    const id = `a->b-${Math.random()}`;
    const held = new PartitionBatchKeys();
    const pairs: [string, number][] = [["orders", 0], ["orders", 1], ["clicks", 0]];
    const first = listPartitionBatch([flowOf(id, pairs)], held).keys;
    expect(first).toEqual([[id, id, id], ["orders", "orders", "clicks"], [0, 1, 0]]);
    // A new cycle's partition objects, the same partitions: the same arrays (the table takes its last ids whole).
    expect(listPartitionBatch([flowOf(id, pairs)], held).keys).toBe(first);
    // Reordered, or a partition added: new key columns with the new order.
    const reordered = listPartitionBatch([flowOf(id, [["orders", 1], ["orders", 0], ["clicks", 0]])], held).keys;
    expect(reordered).not.toBe(first);
    expect(reordered).toEqual([[id, id, id], ["orders", "orders", "clicks"], [1, 0, 0]]);
    const added = listPartitionBatch([flowOf(id, [["orders", 1], ["orders", 0], ["clicks", 0], ["clicks", 1]])], held).keys;
    expect(added[2]).toEqual([1, 0, 0, 1]);
  });

  it("are listed again for a flow listing a partition twice, and for another set of flows", () => {
    const [a, b] = [`a->b-${Math.random()}`, `b->a-${Math.random()}`];
    const held = new PartitionBatchKeys();
    const twice: [string, number][] = [["orders", 0], ["orders", 0]];
    const first = listPartitionBatch([flowOf(a, twice)], held).keys;
    expect(listPartitionBatch([flowOf(a, twice)], held).keys).not.toBe(first);
    const one = listPartitionBatch([flowOf(a, [["orders", 0]])], held).keys;
    const both = listPartitionBatch([flowOf(a, [["orders", 0]]), flowOf(b, [["orders", 0]])], held).keys;
    expect(both).not.toBe(one);
    expect(both).toEqual([[a, b], ["orders", "orders"], [0, 0]]);
  });
});
