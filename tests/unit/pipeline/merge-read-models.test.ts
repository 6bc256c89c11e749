import { describe, expect, it } from "vitest";
import { listSyncHistories } from "@/lib/collector/sync-history";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { mergeReadModels } from "@/lib/pipeline/merge-read-models";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { makeCluster, makeConnect, makeFlow, makeFlowPartition, makeHistory, T0 } from "../detect/fixtures";

function makeAlert(id: string, flow: string, lastSeen: number, summary = `lag on ${flow}`): AlertRecord {
  return {
    id, key: `REPLICATION_LAG|${flow}|orders|0`, type: "REPLICATION_LAG", severity: "warning", state: "firing", acknowledged: null, flow,
    cluster: null, topic: "orders", partition: 0, group: null, summary, evidence: {}, firstSeen: T0, lastSeen, resolvedAt: null,
  };
}

/** One shard's model: flow `source->target` over clusters source and target, polled at `takenAt`. */
function makeShardModel(source: string, target: string, cycle: number, takenAt: number, alerts: AlertRecord[]): ReadModel {
  const id = `${source}->${target}`;
  const flow = makeFlow({ id, source, target, partitions: [makeFlowPartition({ topic: "orders", partition: 0, sourceLogEnd: BigInt(cycle * 100), mm2Position: BigInt(cycle * 100 - 10) })] });
  const snapshot: Snapshot = {
    cycle, takenAt, durationMs: cycle * 10,
    clusters: [makeCluster(source), makeCluster(target)],
    connect: [makeConnect([], { name: `connect-${source}` })],
    flows: [flow],
    transactionLedgers: {},
    malformedRecords: { [`${source}/mm2-offset-syncs.${target}.internal`]: cycle },
  };
  const history = makeHistory([[cycle, cycle + 1000]]);
  return {
    snapshot,
    history: { offsetSyncs: new Map([...listSyncHistories(history.offsetSyncs)].map(([, v]) => [`${id}|orders|0`, v])) },
    translations: new Map(),
    translationErrors: new Map([[id, `no checkpoints on ${target}`]]),
    alerts,
    risks: [],
    progress: new ProgressWindow(300_000).record(snapshot),
    audit: new Map(),
    builtAt: takenAt + 50,
  };
}

describe("mergeReadModels", () => {
  it("is null without models and the model itself with one", () => {
    const only = makeShardModel("east", "west", 3, T0, []);
    expect(mergeReadModels([])).toBeNull();
    expect(mergeReadModels([only])).toBe(only);
  });

  it("concatenates two disjoint shards' clusters, flows, alerts and maps; as old as the oldest, the highest cycle", () => {
    const a = makeShardModel("east", "west", 7, T0 + 20_000, [makeAlert("00000000000000a1", "east->west", T0 + 20_000)]);
    const b = makeShardModel("north", "south", 4, T0 + 10_000, [makeAlert("00000000000000b1", "north->south", T0 + 10_000)]);
    const merged = mergeReadModels([a, b])!;
    // Oldest model first: b's entries come before a's.
    expect(merged.snapshot.flows.map((f) => [f.id, f.partitions[0]!.sourceLogEnd])).toEqual([["north->south", 400n], ["east->west", 700n]]);
    expect(merged.snapshot.clusters.map((c) => c.alias)).toEqual(["north", "south", "east", "west"]);
    expect(merged.snapshot.connect.map((c) => c.name)).toEqual(["connect-north", "connect-east"]);
    expect([merged.snapshot.cycle, merged.snapshot.takenAt, merged.snapshot.durationMs, merged.builtAt]).toEqual([7, T0 + 10_000, 70, T0 + 10_050]);
    expect(merged.snapshot.malformedRecords).toEqual({ "north/mm2-offset-syncs.south.internal": 4, "east/mm2-offset-syncs.west.internal": 7 });
    expect(merged.alerts.map((x) => x.id)).toEqual(["00000000000000b1", "00000000000000a1"]);
    expect([...listSyncHistories(merged.history.offsetSyncs)]).toEqual([
      ["north->south|orders|0", [{ upstream: 4n, downstream: 1004n }]],
      ["east->west|orders|0", [{ upstream: 7n, downstream: 1007n }]],
    ]);
    expect([...merged.translationErrors]).toEqual([["north->south", "no checkpoints on south"], ["east->west", "no checkpoints on west"]]);
    expect([...merged.progress.current.flows.keys()]).toEqual(["north->south", "east->west"]);
    expect([merged.progress.current.at, merged.progress.reference]).toEqual([T0 + 10_000, null]);
  });

  it("keeps the newer shard's entry when a moved flow and its alert are still in an older shard's model", () => {
    const old = makeShardModel("east", "west", 5, T0, [makeAlert("00000000000000a1", "east->west", T0, "old owner's view")]);
    const moved = makeShardModel("east", "west", 2, T0 + 30_000, [makeAlert("00000000000000a1", "east->west", T0 + 30_000, "new owner's view")]);
    const merged = mergeReadModels([moved, old])!;
    expect(merged.snapshot.flows.map((f) => [f.id, f.partitions[0]!.sourceLogEnd])).toEqual([["east->west", 200n]]);
    expect(merged.alerts.map((x) => [x.id, x.summary, x.lastSeen])).toEqual([["00000000000000a1", "new owner's view", T0 + 30_000]]);
    expect(merged.snapshot.clusters.map((c) => c.alias)).toEqual(["east", "west"]);
    expect([...listSyncHistories(merged.history.offsetSyncs)].map(([, v]) => v)).toEqual([[{ upstream: 2n, downstream: 1002n }]]);
  });
});
