import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fillFlowColumns, findEncodedSlot, FlowFlag, generationOf, OffsetBeyondExactError, readFlowColumns, refillLagColumn, slotOf } from "@/lib/collector/flow-columns";
import { flowPartitionKey, type FlowPartition } from "@/lib/collector/types";
import { makeFlow, makeFlowPartition } from "../detect/fixtures";

/** A flow id of its own per test: slots are kept per flow id for the whole process. */
const newFlowId = () => `east-${randomUUID().slice(0, 8)}->west`;

/** A flow of these partitions (readFlowColumns reads a flow). */
const flowOf = (id: string, partitions: FlowPartition[]) => makeFlow({ id, partitions });

const at = (topic: string, partition: number, overrides: Partial<FlowPartition> = {}) => makeFlowPartition({ topic, partition, ...overrides });

describe("flow columns", () => {
  it("keeps every partition's slot when a partition is added before it, and gives the new one the next slot", () => {
    const flowId = newFlowId();
    const first = fillFlowColumns(flowId, [at("b", 0), at("b", 1), at("c", 0)], true);
    expect(Array.from(first.slotAt)).toEqual([0, 1, 2]);
    // Cycle 2: topic "a" sorts first, b/1 is gone, c/1 is new.
    const second = fillFlowColumns(flowId, [at("a", 0), at("b", 0), at("c", 0), at("c", 1)], true);
    expect(Array.from(second.slotAt)).toEqual([3, 0, 2, 4]);
    expect(second.keys[0]).toBe(flowPartitionKey(flowId, "b", 0));
    expect(second.keys[3]).toBe(flowPartitionKey(flowId, "a", 0));
    // The removed partition's slot holds nothing this cycle.
    expect(second.knownPositionOf[1]).toBe(-1);
    expect(Number.isNaN(second.sourceLogEnd[1]!)).toBe(true);
  });

  it("holds offsets as numbers by slot, NaN where unknown, and knows which positions' data is known", () => {
    const flowId = newFlowId();
    const partitions = [
      at("orders", 0, { sourceLogStart: 5n, sourceLogEnd: 900n, mm2Position: 850n, lag: 50n, targetLogEnd: 845n }),
      at("orders", 1, { mm2Position: null, committedPosition: null, lag: null, unknown: { reason: "west ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: null } }),
    ];
    const columns = fillFlowColumns(flowId, partitions, true);
    expect([columns.sourceLogStart[0], columns.sourceLogEnd[0], columns.mm2Position[0], columns.lag[0], columns.targetLogEnd[0]]).toEqual([5, 900, 850, 50, 845]);
    expect(Number.isNaN(columns.mm2Position[1]!)).toBe(true);
    expect(Number.isNaN(columns.lag[1]!)).toBe(true);
    expect(Array.from(columns.knownPositionOf)).toEqual([0, -1]);
    expect(columns.duplicates).toBe(false);
    // Filled once: asked again for the same partitions, the same columns.
    expect(readFlowColumns(flowOf(flowId, partitions))).toBe(columns);
  });

  it("finds a flow partition key's slot, and flags a partition listed twice", () => {
    const flowId = newFlowId();
    const columns = fillFlowColumns(flowId, [at("t", 0), at("t", 1), at("t", 1)], true);
    const found = findEncodedSlot(flowPartitionKey(flowId, "t", 1));
    expect(generationOf(found)).toBe(columns.generation);
    expect(slotOf(found)).toBe(1);
    expect(findEncodedSlot(flowPartitionKey(flowId, "t", 9))).toBe(-1);
    expect(columns.duplicates).toBe(true);
  });

  it("rejects an offset at or beyond 2^53, naming the partition and the offset", () => {
    const flowId = newFlowId();
    const huge = 2n ** 53n;
    expect(() => fillFlowColumns(flowId, [at("orders", 7, { sourceLogEnd: huge, mm2Position: 10n, lag: null })], true)).toThrow(
      `${flowId} orders/7: source log end ${huge} is beyond 2^53, where offsets stop being exact as numbers`,
    );
    // Its own class: the store's readers fall back to the partitions' bigints on this error only.
    expect(() => fillFlowColumns(flowId, [at("orders", 7, { sourceLogEnd: huge, mm2Position: 10n, lag: null })], true)).toThrow(
      OffsetBeyondExactError,
    );
  });

  it("refills only the lag column for the source tail's copy of the partitions", () => {
    const flowId = newFlowId();
    const before = [at("orders", 0, { lag: 40n }), at("orders", 1, { lag: 7n })];
    const columns = fillFlowColumns(flowId, before, true);
    const after = [before[0]!, { ...before[1]!, lag: 3n, lagBasis: "records" as const }];
    const tailed = flowOf(flowId, after);
    refillLagColumn(flowOf(flowId, before), tailed, Float64Array.from([Number.NaN, 3]));
    const refilled = readFlowColumns(tailed);
    expect(Array.from(refilled.lag)).toEqual([40, 3]);
    expect(refilled.slotAt).toBe(columns.slotAt);
    // The columns of the partitions before are untouched.
    expect(Array.from(readFlowColumns(flowOf(flowId, before)).lag)).toEqual([40, 7]);
  });
  it("numbers source topic IDs alike across cycles, holds flags, and lists where each topic's run starts", () => {
    const flowId = newFlowId();
    const first = fillFlowColumns(
      flowId,
      [
        at("a", 0, { sourceTopicId: "id-a" }),
        at("a", 1, { sourceTopicId: "id-a", targetDensityIssue: "another producer writes here" }),
        at("b", 0, { sourceTopicId: null }),
      ],
      true,
    );
    expect(first.sourceTopicId[0]).toBe(first.sourceTopicId[1]);
    expect(first.sourceTopicId[0]).toBeGreaterThanOrEqual(0);
    expect(first.sourceTopicId[2]).toBe(-1);
    expect(Array.from(first.flags)).toEqual([0, FlowFlag.TARGET_NOT_DENSE, 0]);
    expect(Array.from(first.topicRunStarts)).toEqual([0, 2]);
    // Next cycle (columns are by slot: a/0 0, a/1 1, b/0 2): a/0 under a new ID gets a new number, a/1 keeps its
    // ID's; b/0 moved to another connector; "a" listed again after "b" starts a run of its own.
    const copierChange = { from: "mm2-old", fromPosition: 10n, logStartAtChange: 0n, logEndAtChange: 20n, at: 1 };
    const second = fillFlowColumns(
      flowId,
      [at("a", 0, { sourceTopicId: "id-a2" }), at("b", 0, { sourceTopicId: null, copierChange }), at("a", 1, { sourceTopicId: "id-a" })],
      true,
    );
    expect(second.sourceTopicId[0]).not.toBe(first.sourceTopicId[0]);
    expect(second.sourceTopicId[1]).toBe(first.sourceTopicId[1]);
    expect(second.flags[2]).toBe(FlowFlag.COPIER_CHANGE);
    expect(Array.from(second.topicRunStarts)).toEqual([0, 1, 2]);
  });
});
