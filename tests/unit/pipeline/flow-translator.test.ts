import { describe, expect, it } from "vitest";
import { type ClusterSnapshot, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import { FlowTranslator, listTranslationSamples } from "@/lib/pipeline/flow-translator";
import { FLOW, makeFlow, makeFlowPartition, makeGroup, makeHistory, readSampleColumns, syncs, T0 } from "../translation/fixtures";

function makeSourceCluster(groups: ClusterSnapshot["groups"]): ClusterSnapshot {
  return {
    alias: "east", bootstrap: ["east:9092"], reachable: true, error: null, dataAt: T0, stale: false,
    brokers: [], controllerId: 1, topics: [], groups, uncleanLeaderElectionDefault: false,
  };
}

describe("FlowTranslator", () => {
  it("translates every flow of a cycle; one store sample per group × partition", () => {
    const snapshot: Snapshot = {
      cycle: 1, takenAt: T0, durationMs: 5, connect: [], malformedRecords: {},
      clusters: [makeSourceCluster([makeGroup("app", { "orders/0": 150n, "orders/1": 3n })])],
      flows: [makeFlow()],
    };
    const translations = new FlowTranslator().translateCycle(snapshot, { offsetSyncs: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }) });
    expect([...translations.keys()]).toEqual([FLOW]);
    expect(readSampleColumns(listTranslationSamples(translations.get(FLOW)!))).toEqual([
      { group: "app", topic: "orders", partition: 0, committed: 150n, translated: 101n, checkpointDownstream: null, idealLow: 150n, idealHigh: 150n, reread: 49n, failoverReread: 49n, groupLag: 9_850n },
      { group: "app", topic: "orders", partition: 1, committed: 3n, translated: null, checkpointDownstream: null, idealLow: null, idealHigh: null, reread: null, failoverReread: null, groupLag: 9_997n },
    ]);
  });

  it("fails only the flow whose offsets it cannot compute exactly (past 2^53) and names why; the others translate", () => {
    const south = makeFlow({ id: "east->south", target: "south", partitions: [makeFlowPartition({ topic: "payments" })] });
    const snapshot: Snapshot = {
      cycle: 1, takenAt: T0, durationMs: 5, connect: [], malformedRecords: {},
      clusters: [makeSourceCluster([makeGroup("app", { "orders/0": 150n, "payments/0": 2n ** 53n })])],
      flows: [makeFlow(), south],
    };
    const failed = new Map<string, string>();
    const offsetSyncs = makeHistory({ 0: syncs([0, 0], [100, 100]) });
    offsetSyncs.set(flowPartitionKey("east->south", "payments", 0), syncs([0, 0], [100, 100]));
    const history = { offsetSyncs };
    const translations = new FlowTranslator().translateCycle(snapshot, history, failed);
    expect([...translations.keys()]).toEqual([FLOW]);
    expect([...failed.keys()]).toEqual(["east->south"]);
    expect(failed.get("east->south")).toContain("9007199254740992 of payments/0 (flow east->south) is beyond 2^53");
  });
});
