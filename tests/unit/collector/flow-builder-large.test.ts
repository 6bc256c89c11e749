/**
 * buildFlow over 5,000 partitions (1,000 topics × 5): names that differ in case and punctuation,
 * topics listed out of order, partitions listed backwards on some topics of either cluster.
 */
import { describe, expect, it } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { flowPartitionKey, type PartitionState } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";

const spellings = ["orders-", "Orders.", "orders_", "ORDERS"];

describe("buildFlow at 5,000 partitions", () => {
  it("orders partitions by topic as localeCompare does, then partition, with each partition's own figures", () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `${spellings[i % 4]}${(i * 7919) % 1_000}`);
    const sourceTopics = names.map((name, t) => {
      const partitions = [0, 1, 2, 3, 4].map((p): Partial<PartitionState> => ({ partition: p, logStart: 0n, logEnd: BigInt(1_000 * (t + 1) + p) }));
      return makeTopic(name, t % 3 === 0 ? partitions.reverse() : partitions);
    });
    const targetTopics = names.map((name, t) => {
      const partitions = [0, 1, 2, 3, 4].map((p): Partial<PartitionState> => ({ partition: p, logStart: 0n, logEnd: BigInt(1_000 * (t + 1) + p - 10) }));
      return makeTopic(`east.${name}`, t % 5 === 0 ? partitions.reverse() : partitions);
    });
    // Connect's positions trail by 20; where a sync exists (every other topic) the target proves 10 more.
    const positions = new Map(names.flatMap((name, t) => [0, 1, 2, 3, 4].map((p): [string, bigint] => [`${name}/${p}`, BigInt(1_000 * (t + 1) + p - 21)])));
    const syncHistory = new Map<string, readonly SyncPoint[]>();
    names.forEach((name, t) => {
      if (t % 2 === 0) for (const p of [0, 1, 2, 3, 4]) syncHistory.set(flowPartitionKey("east->west", name, p), [{ upstream: BigInt(1_000 * t), downstream: BigInt(1_000 * t) }]);
    });

    const flow = buildFlow(makeDefinition(), makeCluster("east", sourceTopics), makeCluster("west", targetTopics), makeReadings({ positions, syncHistory }), T0);

    const expected = names.flatMap((name) => [0, 1, 2, 3, 4].map((partition) => ({ topic: name, partition })));
    expected.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    expect(flow.partitions.map((p) => `${p.topic}/${p.partition}`)).toEqual(expected.map((p) => `${p.topic}/${p.partition}`));
    const at = (t: number, p: number) => flow.partitions.find((x) => x.topic === names[t] && x.partition === p)!;
    // Topic 6: sync (6000, 6000), target log end 7000 + 3 − 10: the target proves 6993.
    expect(at(6, 3)).toMatchObject({ sourceLogEnd: 7_003n, targetLogEnd: 6_993n, committedPosition: 6_983n, mm2Position: 6_993n, positionSource: "offset-sync", lag: 10n });
    // Topic 5: no sync, Connect's position.
    expect(at(5, 4)).toMatchObject({ sourceLogEnd: 6_004n, targetLogEnd: 5_994n, committedPosition: 5_984n, mm2Position: 5_984n, positionSource: "committed", lag: 20n });
    expect(flow.totals).toEqual({ topics: 1_000, partitions: 5_000, lag: 2_500n * 10n + 2_500n * 20n, unknownPositions: 0 });
  });

  it("keeps the localeCompare order when it reuses the previous cycle's topic order, and sorts again when the topics changed", () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `${spellings[i % 4]}${(i * 7919) % 1_000}`);
    const build = (topics: readonly string[], previous: ReturnType<typeof buildFlow> | null) =>
      buildFlow(
        makeDefinition(),
        makeCluster("east", topics.map((name) => makeTopic(name, [{ partition: 0, logStart: 0n, logEnd: 10n }, { partition: 1, logStart: 0n, logEnd: 10n }]))),
        makeCluster("west", topics.map((name) => makeTopic(`east.${name}`, [{ partition: 0, logStart: 0n, logEnd: 10n }, { partition: 1, logStart: 0n, logEnd: 10n }]))),
        makeReadings({}),
        T0,
        previous === null ? null : { flow: previous, takenAt: T0 - 5_000 },
      );
    const sortedNames = (topics: readonly string[]) => [...topics].sort((a, b) => a.localeCompare(b));
    const order = (flow: ReturnType<typeof buildFlow>) => flow.partitions.map((p) => `${p.topic}/${p.partition}`);
    const expected = (topics: readonly string[]) => sortedNames(topics).flatMap((name) => [`${name}/0`, `${name}/1`]);

    const first = build(names, null);
    // The same topics listed in another order: the previous order is reused, and it is the sorted one.
    const same = build([...names].reverse(), first);
    expect(order(same)).toEqual(expected(names));
    // One topic more (between two others), one less: sorted again.
    const changed = [...names.slice(1), "orders-5000"];
    const next = build(changed, same);
    expect(order(next)).toEqual(expected(changed));
    expect(next.partitions).toHaveLength(2_000);
    expect(next.partitions.some((p) => p.topic === names[0])).toBe(false);
  });
});
