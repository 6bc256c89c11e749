/**
 * buildFlow fills the flow's columns as it builds the partitions (FlowColumnsFiller): the columns must be exactly the
 * ones fillFlowColumns makes from the finished partitions, cycle after cycle, whatever the source lists.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildFlow, summarizeFlowTotals } from "@/lib/collector/flow-builder";
import { fillFlowColumns, type FlowColumns, readFlowColumns } from "@/lib/collector/flow-columns";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { type Flow, flowPartitionKey, type PartitionState, type TopicState } from "@/lib/collector/types";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";
import { createRandom } from "../seeded-random";

/** The columns' fields as plain arrays (typed arrays compared by value; NaN equals NaN in toEqual). */
function describeColumns(columns: FlowColumns) {
  return {
    generation: columns.generation,
    slots: columns.slots,
    duplicates: columns.duplicates,
    slotAt: Array.from(columns.slotAt),
    knownPositionOf: Array.from(columns.knownPositionOf),
    keys: [...columns.keys],
    sourceLogStart: Array.from(columns.sourceLogStart),
    sourceLogEnd: Array.from(columns.sourceLogEnd),
    mm2Position: Array.from(columns.mm2Position),
    committedPosition: Array.from(columns.committedPosition),
    targetLogStart: Array.from(columns.targetLogStart),
    targetLogEnd: Array.from(columns.targetLogEnd),
    lag: Array.from(columns.lag),
    sourceTopicId: Array.from(columns.sourceTopicId),
    flags: Array.from(columns.flags),
    topicRunStarts: Array.from(columns.topicRunStarts),
  };
}

/** The columns buildFlow kept for the flow, and those fillFlowColumns makes from its partitions (same slot index). */
function compareColumns(flow: Flow) {
  const built = describeColumns(readFlowColumns(flow));
  const reference = describeColumns(fillFlowColumns(flow.id, flow.partitions, false));
  return { built, reference };
}

describe("buildFlow's columns, filled while the partitions are built", () => {
  it("equal fillFlowColumns' over 12 random cycles: topics come and go, listed out of order, twice, unread", () => {
    const random = createRandom(32);
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const names = Array.from({ length: 40 }, (_, i) => `${["orders", "Orders", "clicks-", "a."][i % 4]}${(i * 37) % 40}`);
    const syncs = new SyncHistoryStore(50);
    let previous: Flow | null = null;
    let checkedCycles = 0;
    for (let cycle = 1; cycle <= 12; cycle++) {
      // About three topics in four each cycle, a topic's partition count changing between 1 and 4.
      const present = names.filter(() => random() < 0.75);
      const source: TopicState[] = [];
      const target: TopicState[] = [];
      const positions = new Map<string, bigint>();
      for (const name of present) {
        const count = 1 + Math.floor(random() * 4);
        const parts: Partial<PartitionState>[] = [];
        for (let p = 0; p < count; p++) {
          const logEnd = BigInt(1_000 * cycle + 10 * p + Math.floor(random() * 10));
          // One partition in 15 unread (ListOffsets failed): its data is unknown.
          parts.push(random() < 1 / 15 ? { partition: p, logStart: null, logEnd: null, error: "NOT_LEADER_OR_FOLLOWER" } : { partition: p, logStart: 0n, logEnd });
          positions.set(`${name}/${p}`, logEnd - BigInt(1 + Math.floor(random() * 20)));
          if (random() < 0.3) syncs.append(flowPartitionKey(def.id, name, p), [{ upstream: logEnd - 30n, downstream: logEnd - 40n }]);
        }
        source.push(makeTopic(name, random() < 0.3 ? parts.reverse() : parts));
        // The target lacks the last partition of one topic in five (MM2 has not added it yet).
        const remote = random() < 0.2 ? parts.slice(0, -1) : parts;
        target.push(makeTopic(`east.${name}`, remote.map((p) => (p.logEnd == null ? p : { ...p, logEnd: p.logEnd - 25n }))));
      }
      // Every fourth cycle a topic is listed twice (its partitions appear twice: the columns hold the last listing).
      if (cycle % 4 === 0 && source.length > 0) source.push({ ...source[0]! });
      source.sort(() => random() - 0.5);
      const flow: Flow = buildFlow(
        def,
        makeCluster("east", source),
        makeCluster("west", target),
        makeReadings({ positions, syncHistory: syncs }),
        T0 + cycle * 5_000,
        previous === null ? null : { flow: previous, takenAt: T0 + (cycle - 1) * 5_000 },
      );
      const { built, reference } = compareColumns(flow);
      expect(built, `cycle ${cycle}`).toEqual(reference);
      expect(flow.totals, `cycle ${cycle}`).toEqual(summarizeFlowTotals(flow.partitions));
      previous = flow;
      checkedCycles++;
    }
    expect(checkedCycles).toBe(12);
  });

  it("reads a partition's newest sync through its slot, syncs appended between cycles included", () => {
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const syncs = new SyncHistoryStore(10);
    const build = (logEnd: bigint, targetLogEnd: bigint) =>
      buildFlow(
        def,
        makeCluster("east", [makeTopic("orders", [{ partition: 0, logStart: 0n, logEnd }, { partition: 1, logStart: 0n, logEnd }])]),
        makeCluster("west", [makeTopic("east.orders", [{ partition: 0, logStart: 0n, logEnd: targetLogEnd }, { partition: 1, logStart: 0n, logEnd: targetLogEnd }])]),
        makeReadings({ positions: new Map([["orders/0", 10n], ["orders/1", 10n]]), syncHistory: syncs }),
        T0,
      );
    syncs.append(flowPartitionKey(def.id, "orders", 0), [{ upstream: 100n, downstream: 90n }]);
    // Partition 0: target log end 95 proves 100 + (95 − 90) = 105. Partition 1 has no sync: Connect's 11.
    expect(build(200n, 95n).partitions.map((p) => p.mm2Position)).toEqual([105n, 11n]);
    syncs.append(flowPartitionKey(def.id, "orders", 0), [{ upstream: 150n, downstream: 140n }]);
    syncs.append(flowPartitionKey(def.id, "orders", 1), [{ upstream: 120n, downstream: 110n }]);
    const second = build(200n, 145n);
    // The newer sync of partition 0 (150, 140) and partition 1's first one (120, 110), found on the next cycle.
    expect(second.partitions.map((p) => p.mm2Position)).toEqual([155n, 155n]);
    expect(Array.from(readFlowColumns(second).mm2Position)).toEqual([155, 155]);
  });

  it("gives the slots anew when most of them are idle, as fillFlowColumns does", () => {
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const build = (topics: string[]) =>
      buildFlow(
        def,
        makeCluster("east", topics.map((name) => makeTopic(name, [{ partition: 0, logStart: 0n, logEnd: 5n }]))),
        makeCluster("west", topics.map((name) => makeTopic(`east.${name}`, [{ partition: 0, logStart: 0n, logEnd: 5n }]))),
        makeReadings({ positions: new Map() }),
        T0,
      );
    const many = build(Array.from({ length: 5_000 }, (_, i) => `t${i}`));
    const generation = readFlowColumns(many).generation;
    const few = build(["t7", "t9"]);
    const columns = readFlowColumns(few);
    expect(columns.generation).toBeGreaterThan(generation);
    expect(Array.from(columns.slotAt)).toEqual([0, 1]);
    expect(columns.slots).toBe(2);
  });
});
