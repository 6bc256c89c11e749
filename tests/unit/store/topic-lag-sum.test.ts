import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { sumLagPerTopic } from "@/lib/store/series";

/** Only the fields sumLagPerTopic reads (the flow's columns: offsets, partition numbers, unknown). */
const flowOf = (partitions: [string, bigint | null][]) => {
  const next = new Map<string, number>();
  const offsets = { sourceLogStart: null, sourceLogEnd: null, mm2Position: null, committedPosition: null, targetLogStart: null, targetLogEnd: null };
  const list = partitions.map(([topic, lag]) => {
    const partition = next.get(topic) ?? 0;
    next.set(topic, partition + 1);
    return { topic, partition, lag, unknown: null, ...offsets } as unknown as FlowPartition;
  });
  return { id: `a->b-${Math.random()}`, partitions: list } as unknown as Flow;
};

describe("lag per topic", () => {
  it("sums each topic's known lags in the order topics first appear, a topic listed apart summed once, unknown as 0", () => {
    const flow = flowOf([
      ["orders", 3n],
      ["orders", null],
      ["orders", 2n ** 52n],
      ["clicks", null],
      ["audit", 7n],
      ["orders", 2n ** 52n],
    ]);
    expect([...sumLagPerTopic(flow)]).toEqual([
      ["orders", 2n ** 53n + 3n],
      ["clicks", 0n],
      ["audit", 7n],
    ]);
  });

  it("sums exactly past 2^53, where a sum of numbers would round", () => {
    const big = 2n ** 53n - 1n;
    const flow = flowOf([
      ["orders", big],
      ["orders", big],
      ["orders", 1n],
      ["orders", -big],
    ]);
    expect([...sumLagPerTopic(flow)]).toEqual([["orders", big + 1n]]);
  });
});
