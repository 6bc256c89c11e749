import { describe, expect, it } from "vitest";
import type { CheckpointPoint } from "@/lib/collector/types";
import { CheckpointIndex } from "@/lib/translation";
import { makeCheckpoint } from "./fixtures";

/**
 * What the index answers for every group partition of `lists`, as nested plain objects: group → topic → partition →
 * [upstream, downstream] (absent: no checkpoint).
 */
function describeIndex(index: CheckpointIndex, lists: readonly CheckpointPoint[][]): Record<string, Record<string, Record<number, [bigint, bigint]>>> {
  const out: Record<string, Record<string, Record<number, [bigint, bigint]>>> = {};
  for (const { group, topic, partition } of lists.flat()) {
    const c = index.find(group, topic, partition);
    if (c === undefined) continue;
    // Through the group's positions too: the same checkpoint.
    expect(index.at(index.findGroup(group)!.get(topic)!.get(partition)!)).toBe(c);
    ((out[group] ??= {})[topic] ??= {})[partition] = [c.upstream, c.downstream];
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
    const generations: number[] = [];
    const described = lists.map((list) => {
      const index = describeIndex(kept.update(list), lists);
      generations.push(kept.generation);
      expect(index).toEqual(describeIndex(new CheckpointIndex().update(list), lists));
      return index;
    });
    // Positions stand (same generation) only where each position names the partition it named before, without repeats.
    expect(generations.map((g, i) => i > 0 && g === generations[i - 1])).toEqual([false, true, false, false, false, false, false, false]);
    expect(described[1]).toEqual({ app: { orders: { 0: [100n, 100n], 1: [210n, 210n] } }, billing: { orders: { 0: [300n, 300n] } } });
    expect(described[4]).toEqual({ app: { orders: { 0: [6n, 6n], 1: [200n, 200n] } }, billing: { orders: { 0: [310n, 310n] } } });
    expect(described[6]).toEqual({ app: { orders: { 0: [100n, 100n] } }, billing: { orders: { 1: [300n, 300n] } } });
    expect(described[7]).toEqual({});
  });

  it("indexes checkpoints added at the list's end where they stand, marking only their groups", () => {
    const index = new CheckpointIndex().update([a0]);
    const generation = index.generation;
    const before = index.additionCount;
    const big = makeCheckpoint("billing", "orders", 1, 2n ** 60n, 7n);
    index.update([a0, a1, big]);
    expect(index.generation).toBe(generation);
    expect(index.addedSince("app", before)).toBe(true);
    expect(index.addedSince("billing", before)).toBe(true);
    expect(index.addedSince("app", index.additionCount)).toBe(false);
    expect(describeIndex(index, [[a0, a1, big]])).toEqual(describeIndex(new CheckpointIndex().update([a0, a1, big]), [[a0, a1, big]]));
    // The numbers by position: exact ones as numbers, one beyond 2^53 as NaN (toSafeOffset reports it).
    expect([index.upstreamAt(1), index.downstreamAt(1), index.readAt(1)]).toEqual([200, 200, a1.at]);
    expect([index.upstreamAt(2), index.downstreamAt(2)]).toEqual([Number.NaN, 7]);
    // A partition added again at the end is a repeat: built again, under a new generation.
    index.update([a0, a1, big, { ...a0, upstream: 9n, downstream: 9n }]);
    expect(index.generation).not.toBe(generation);
    expect(index.find("app", "orders", 0)?.upstream).toBe(9n);
  });
});
