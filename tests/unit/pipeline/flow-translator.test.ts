import { describe, expect, it } from "vitest";
import type { ClusterSnapshot, Snapshot } from "@/lib/collector/types";
import { FlowTranslator, listTranslationSamples } from "@/lib/pipeline/flow-translator";
import { FLOW, makeFlow, makeGroup, makeHistory, syncs, T0 } from "../translation/fixtures";

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
    expect(listTranslationSamples(translations.get(FLOW)!)).toEqual([
      { group: "app", topic: "orders", partition: 0, committed: 150n, translated: 101n, checkpointDownstream: null, idealLow: 150n, idealHigh: 150n, reread: 49n, failoverReread: 49n, groupLag: 9_850n },
      { group: "app", topic: "orders", partition: 1, committed: 3n, translated: null, checkpointDownstream: null, idealLow: null, idealHigh: null, reread: null, failoverReread: null, groupLag: 9_997n },
    ]);
  });
});
