import { describe, expect, it } from "vitest";
import type { FlowPartition } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { makeFlow, makeFlowPartition, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

/**
 * The snapshot sequence a source partition count increase gives (seen on the sandbox,
 * integration/lookalikes/topology-partitions): orders/3 appears at the source with records and no remote partition
 * (MM2 follows at its next topic refresh), then MM2 creates east.orders/3 empty, then copies it from offset 0.
 */
const copied = makeFlowPartition({ partition: 2, lag: 0n, offsetLag: 0n, positionSource: "offset-sync" });
const newPartition = (overrides: Partial<FlowPartition>) =>
  makeFlowPartition({ partition: 3, sourceLogEnd: 50n, mm2Position: null, latestSync: null, targetLogStart: null, targetLogEnd: null, lag: null, offsetLag: null, ...overrides });
const grownSource = { topics: [makeTopic("orders", [{ partition: 2 }, { partition: 3, logEnd: 50n }], { topicId: "id-1" })] };
const missing = (partitions: number[]) => ({
  filterKnown: true,
  matchedByFilter: 1,
  unmatched: [],
  missingOnTarget: [],
  partitionsMissingOnTarget: partitions.length === 0 ? [] : [{ topic: "orders", targetTopic: "east.orders", partitions, since: T0 + 10_000 }],
  targetKnown: true,
});
const cycle = (n: number, partitions: FlowPartition[], missingPartitions: number[]) => ({
  snapshot: makeSnapshot({ cycle: n, east: n === 1 ? {} : grownSource, flows: [makeFlow({ partitions, coverage: missing(missingPartitions) })] }),
});

describe("a source partition count increased (detectors over the whole sequence)", () => {
  it("raises nothing while MM2 has not followed, nor when it creates the partition and copies it from offset 0", () => {
    const outputs = runCycles([
      cycle(1, [copied], []),
      cycle(2, [copied, newPartition({})], [3]),
      cycle(3, [copied, newPartition({})], [3]),
      cycle(4, [copied, newPartition({ targetLogStart: 0n, targetLogEnd: 0n })], []),
      cycle(5, [copied, newPartition({ targetLogStart: 0n, targetLogEnd: 20n, mm2Position: 20n, latestSync: { upstream: 0n, downstream: 0n }, lag: 30n, offsetLag: 30n })], []),
      cycle(6, [copied, newPartition({ targetLogStart: 0n, targetLogEnd: 50n, mm2Position: 50n, latestSync: { upstream: 0n, downstream: 0n }, lag: 0n, offsetLag: 0n })], []),
    ], { ...defaultThresholds, targetTopicMissingMs: 60_000 });
    expect(outputs.map((o) => o.findings.map((f) => `${f.type} ${f.summary}`))).toEqual([[], [], [], [], [], []]);
  });
});
