import { describe, expect, it } from "vitest";
import type { CycleListener } from "@/lib/collector/collector";
import type { ClusterSnapshot, Snapshot } from "@/lib/collector/types";
import type { TranslationSample } from "@/lib/store";
import { attachTranslationRecorder } from "@/lib/translation";
import { FLOW, makeFlow, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

function makeSourceCluster(groups: ClusterSnapshot["groups"]): ClusterSnapshot {
  return {
    alias: "east", bootstrap: ["east:9092"], reachable: true, error: null, dataAt: T0, stale: false,
    brokers: [], controllerId: 1, topics: [], groups, uncleanLeaderElectionDefault: false,
  };
}

describe("attachTranslationRecorder", () => {
  it("writes one sample per group × partition of every flow after each cycle", async () => {
    let listener: CycleListener | null = null;
    const written: { flow: string; samples: readonly TranslationSample[]; at: number }[] = [];
    attachTranslationRecorder({ onCycle: (l) => void (listener = l) }, { recordTranslationSamples: (flow, samples, at) => void written.push({ flow, samples, at }) });
    const snapshot: Snapshot = {
      cycle: 1, takenAt: T0, durationMs: 5, connect: [], malformedRecords: {},
      clusters: [makeSourceCluster([makeGroup("app", { "orders/0": 150n, "orders/1": 3n })])],
      flows: [makeFlow()],
    };
    await listener!(snapshot, null, { offsetSyncs: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }) });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ flow: FLOW, at: T0 });
    expect(written[0]!.samples).toEqual([
      { group: "app", topic: "orders", partition: 0, committed: 150n, translated: 101n, checkpointDownstream: null, idealLow: 150n, idealHigh: 150n, reread: 49n, failoverReread: 49n, groupLag: 9_850n },
      { group: "app", topic: "orders", partition: 1, committed: 3n, translated: null, checkpointDownstream: null, idealLow: null, idealHigh: null, reread: null, failoverReread: null, groupLag: 9_997n },
    ]);
  });
});
