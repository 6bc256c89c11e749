import { describe, expect, it } from "vitest";
import type { CheckpointPoint } from "@/lib/collector/types";
import { CheckpointIndex } from "@/lib/translation";
import { makeCheckpoint } from "./fixtures";

/** The index as nested plain objects: group → topic → partition → [upstream, downstream]. */
function describeIndex(index: ReturnType<CheckpointIndex["update"]>): Record<string, Record<string, Record<number, [bigint, bigint]>>> {
  const out: Record<string, Record<string, Record<number, [bigint, bigint]>>> = {};
  for (const [group, topics] of index) {
    out[group] = {};
    for (const [topic, partitions] of topics) {
      out[group][topic] = {};
      for (const [partition, c] of partitions) out[group][topic][partition] = [c.upstream, c.downstream];
    }
  }
  return out;
}

const a0 = makeCheckpoint("app", "orders", 0, 100n, 100n);
const a1 = makeCheckpoint("app", "orders", 1, 200n, 200n);
const b0 = makeCheckpoint("billing", "orders", 0, 300n, 300n);

describe("CheckpointIndex", () => {
  it("indexes each list as a fresh index would, whatever changed since the last one", () => {
    const kept = new CheckpointIndex();
    const lists: CheckpointPoint[][] = [
      [a0, a1, b0],
      // MM2 emitted app/orders/1 again: replaced in place.
      [a0, { ...a1, upstream: 210n, downstream: 210n }, b0],
      // The same checkpoints in another order, then a partition listed twice (the later one wins), then one gone.
      [b0, a0, a1],
      [a0, a1, b0, { ...a0, upstream: 5n, downstream: 5n }],
      [a0, a1, { ...b0, upstream: 310n, downstream: 310n }, { ...a0, upstream: 6n, downstream: 6n }],
      [a0, a1],
      // Another partition at the same position: built again.
      [a0, { ...b0, partition: 1 }],
      [],
    ];
    const described = lists.map((list) => {
      const index = describeIndex(kept.update(list));
      expect(index).toEqual(describeIndex(new CheckpointIndex().update(list)));
      return index;
    });
    expect(described[1]).toEqual({ app: { orders: { 0: [100n, 100n], 1: [210n, 210n] } }, billing: { orders: { 0: [300n, 300n] } } });
    expect(described[4]).toEqual({ app: { orders: { 0: [6n, 6n], 1: [200n, 200n] } }, billing: { orders: { 0: [310n, 310n] } } });
    expect(described[6]).toEqual({ app: { orders: { 0: [100n, 100n] } }, billing: { orders: { 1: [300n, 300n] } } });
    expect(described[7]).toEqual({});
  });
});
