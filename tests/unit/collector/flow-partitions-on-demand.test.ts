/**
 * buildFlow holds its partitions in rows and makes `flow.partitions` when first read (flow-rows.ts): the flow must be
 * what buildFlow made before, one object per partition (reference-flow-builder.ts), field by field and in order
 * (JSON-identical, bigints included), cycle after cycle, and its columns must be found without making the array.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildFlow, type FlowReadings } from "@/lib/collector/flow-builder";
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countPartitionArraysMade, findFlowRows, readFlowPartition } from "@/lib/collector/flow-rows";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { type CopierChange, type Flow, flowPartitionKey, type PartitionState, type TopicState } from "@/lib/collector/types";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";
import { buildReferenceFlow } from "./reference-flow-builder";
import { createRandom } from "../seeded-random";

/** JSON with bigints marked (a bigint and its number print apart), keys in their order. */
const toJson = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));

/** One random cycle's inputs: topics come and go, listed out of order and twice, unread, moved, not dense. */
function makeCycle(random: () => number, names: readonly string[], cycle: number, flowId: string, syncs: SyncHistoryStore) {
  const present = names.filter(() => random() < 0.75);
  const source: TopicState[] = [];
  const target: TopicState[] = [];
  const positions = new Map<string, bigint>();
  const copiers = new Map<string, { connector: string; change: CopierChange | null }>();
  const targetDensityIssues = new Map<string, string>();
  for (const name of present) {
    const count = 1 + Math.floor(random() * 4);
    const parts: Partial<PartitionState>[] = [];
    for (let p = 0; p < count; p++) {
      const logEnd = BigInt(1_000 * cycle + 10 * p + Math.floor(random() * 10));
      const unread = random() < 1 / 15;
      const epoch = random() < 0.5 ? { leaderEpoch: Math.floor(random() * 5) } : {};
      parts.push(unread ? { partition: p, logStart: null, logEnd: null, error: "NOT_LEADER_OR_FOLLOWER" } : { partition: p, logStart: 0n, logEnd, ...epoch });
      if (random() < 0.9) positions.set(`${name}/${p}`, logEnd - BigInt(1 + Math.floor(random() * 20)));
      if (random() < 0.3) syncs.append(flowPartitionKey(flowId, name, p), [{ upstream: logEnd - 30n, downstream: logEnd - 40n }]);
      if (random() < 0.3) {
        const change = random() < 0.5 ? null : { from: "mm2-old", fromPosition: logEnd - 50n, logStartAtChange: 0n, logEndAtChange: logEnd, at: T0 };
        copiers.set(`${name}/${p}`, { connector: random() < 0.5 ? "mm2-a" : "mm2-b", change });
      }
      if (random() < 0.05) targetDensityIssues.set(`${name}/${p}`, "another producer writes here");
    }
    source.push(makeTopic(name, random() < 0.3 ? parts.reverse() : parts, random() < 0.2 ? { topicId: null } : {}));
    const remote = random() < 0.2 ? parts.slice(0, -1) : parts;
    target.push(makeTopic(`east.${name}`, remote.map((p) => (p.logEnd == null ? p : { ...p, logEnd: p.logEnd - 25n }))));
  }
  if (cycle % 4 === 0 && source.length > 0) source.push({ ...source[0]! });
  source.sort(() => random() - 0.5);
  const failures = cycle % 5 === 0 ? { positionsError: "Connect did not answer", syncsError: null } : { positionsError: null, syncsError: null };
  const readings: FlowReadings = makeReadings({ positions, syncHistory: syncs, copiers, targetDensityIssues, failures });
  return { source: makeCluster("east", source), target: makeCluster("west", target), readings };
}

describe("flow partitions made on demand", () => {
  it("are the flow buildFlow made with one object per partition, over 40 random cycles", () => {
    const random = createRandom(106);
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const names = Array.from({ length: 30 }, (_, i) => `${["orders", "Orders", "clicks-", "a."][i % 4]}${(i * 37) % 30}`);
    const syncs = new SyncHistoryStore(50);
    let previous: { flow: Flow; reference: Flow } | null = null;
    let lazy = 0;
    for (let cycle = 1; cycle <= 40; cycle++) {
      const { source, target, readings } = makeCycle(random, names, cycle, def.id, syncs);
      const now = T0 + cycle * 5_000;
      const last = (flow: Flow) => ({ flow, takenAt: now - 5_000 });
      const flow = buildFlow(def, source, target, readings, now, previous === null ? null : last(previous.flow));
      const reference = buildReferenceFlow(def, source, target, readings, now, previous === null ? null : last(previous.reference));
      const made = countPartitionArraysMade();
      const rows = findFlowRows(flow);
      if (rows !== undefined) {
        lazy++;
        // The columns and single partitions are read from the rows: the array is not made for them.
        readFlowColumns(flow);
        for (let i = 0; i < reference.partitions.length; i++) expect(toJson(readFlowPartition(flow, i))).toBe(toJson(reference.partitions[i]));
        expect(countPartitionArraysMade()).toBe(made);
      }
      expect(toJson(flow), `cycle ${cycle}`).toBe(toJson(reference));
      expect(flow.partitions).toEqual(reference.partitions);
      expect(findFlowRows(flow)).toBeUndefined();
      previous = { flow, reference };
    }
    // Most cycles are made on demand; a cycle listing a topic twice makes its partitions while building.
    expect(lazy).toBeGreaterThanOrEqual(25);
  });

  it("keeps the array once made, and takes one written over it", () => {
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const flow = buildFlow(
      def,
      makeCluster("east", [makeTopic("orders", [{ partition: 0, logStart: 0n, logEnd: 9n }])]),
      makeCluster("west", [makeTopic("east.orders", [{ partition: 0, logStart: 0n, logEnd: 9n }])]),
      makeReadings({ positions: new Map([["orders/0", 8n]]) }),
      T0,
    );
    const made = countPartitionArraysMade();
    const first = flow.partitions;
    expect(flow.partitions).toBe(first);
    expect(countPartitionArraysMade()).toBe(made + 1);
    expect(Object.keys(flow).indexOf("partitions")).toBe(Object.keys(buildReferenceFlow(def, undefined, undefined, makeReadings(), T0)).indexOf("partitions"));
    const second = buildFlow(def, undefined, undefined, makeReadings(), T0);
    second.partitions = first;
    expect(second.partitions).toBe(first);
    expect(countPartitionArraysMade()).toBe(made + 1);
  });
});
