import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { sumLagPerTopic } from "@/lib/store/series";
import { TopicLagChanges } from "@/lib/store/topic-lag-changes";

const offsets = { sourceLogStart: null, sourceLogEnd: null, mm2Position: null, committedPosition: null, targetLogStart: null, targetLogEnd: null };

/** A flow of `id` with these [topic, lag] partitions (only the fields the lag sums read), numbered per topic. */
function flowOf(id: string, partitions: [string, bigint | null][]): Flow {
  const next = new Map<string, number>();
  const list = partitions.map(([topic, lag]) => {
    const partition = next.get(topic) ?? 0;
    next.set(topic, partition + 1);
    return { topic, partition, lag, unknown: null, ...offsets } as unknown as FlowPartition;
  });
  return { id, partitions: list } as unknown as Flow;
}

describe("topics whose total lag changed (TopicLagChanges)", () => {
  it("lists every topic first, then only those whose sum moved, until remembered", () => {
    const id = `a->b-${Math.random()}`;
    const changes = new TopicLagChanges();
    const first = flowOf(id, [["orders", 3n], ["orders", null], ["clicks", null], ["audit", 7n]]);
    expect(changes.list([first], sumLagPerTopic)).toEqual([[id, "orders", 3n], [id, "clicks", 0n], [id, "audit", 7n]]);
    changes.remember();
    // New partition objects, the same sums: nothing; one lag moved: its topic alone.
    expect(changes.list([flowOf(id, [["orders", 1n], ["orders", 2n], ["clicks", null], ["audit", 7n]])], sumLagPerTopic)).toEqual([]);
    const moved = flowOf(id, [["orders", 3n], ["orders", null], ["clicks", 4n], ["audit", 7n]]);
    expect(changes.list([moved], sumLagPerTopic)).toEqual([[id, "clicks", 4n]]);
    // Not remembered (the write failed): listed again.
    expect(changes.list([moved], sumLagPerTopic)).toEqual([[id, "clicks", 4n]]);
    changes.remember();
    expect(changes.list([moved], sumLagPerTopic)).toEqual([]);
  });

  it("compares a topic listed in two runs once, and sums past 2^53 exactly as bigints", () => {
    const id = `a->b-${Math.random()}`;
    const changes = new TopicLagChanges();
    const big = 2n ** 53n - 1n;
    const flow = flowOf(id, [["orders", big], ["clicks", 1n], ["orders", big], ["orders", 1n]]);
    expect(changes.list([flow], sumLagPerTopic)).toEqual([[id, "orders", 2n * big + 1n], [id, "clicks", 1n]]);
    changes.remember();
    expect(changes.list([flow], sumLagPerTopic)).toEqual([]);
    // Back below 2^53: a change from the bigint remembered.
    const small = flowOf(id, [["orders", 5n], ["clicks", 1n], ["orders", 0n], ["orders", 1n]]);
    expect(changes.list([small], sumLagPerTopic)).toEqual([[id, "orders", 6n]]);
    changes.remember();
    expect(changes.list([small], sumLagPerTopic)).toEqual([]);
  });

  it("keeps each flow's topics apart", () => {
    const [a, b] = [`a->b-${Math.random()}`, `b->a-${Math.random()}`];
    const changes = new TopicLagChanges();
    const flows = [flowOf(a, [["orders", 1n]]), flowOf(b, [["orders", 2n]])];
    expect(changes.list(flows, sumLagPerTopic)).toEqual([[a, "orders", 1n], [b, "orders", 2n]]);
    changes.remember();
    expect(changes.list([flowOf(a, [["orders", 2n]]), flowOf(b, [["orders", 2n]])], sumLagPerTopic)).toEqual([[a, "orders", 2n]]);
  });
});
