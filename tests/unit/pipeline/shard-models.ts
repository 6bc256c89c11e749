import { shardOf } from "@/lib/collector/shards";
import type { AlertRecord, RiskRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { makeCluster, makeConnect, makeFlow, makeFlowPartition } from "../detect/fixtures";

/** The first flow id `e<i>->w` whose shard of `count` is `shard` (flows land on shards by Kafka's murmur2). */
export function ownerOfShard(shard: number, count: number, skip = 0): string {
  let found = 0;
  for (let i = 0; ; i++) {
    const id = `e${i}->w`;
    if (shardOf(id, count) === shard && found++ === skip) return id;
  }
}

/**
 * A model as a collector sharing the work publishes it: the flows of the shards it `held` (of 4), each with one
 * partition, a firing lag alert, a risk, a translation error, a catch-up sample and an offset sync.
 */
export function makeCollectorModel(input: { flows: readonly string[]; held: readonly number[]; takenAt: number; cycle?: number }): ReadModel {
  const cycle = input.cycle ?? 1;
  const flows = input.flows.map((id) => {
    const [source, target] = id.split("->") as [string, string];
    const partition = makeFlowPartition({ topic: "orders", partition: 0, sourceLogEnd: BigInt(cycle * 100), mm2Position: BigInt(cycle * 100 - 10) });
    return makeFlow({ id, source, target, partitions: [partition] });
  });
  const snapshot: Snapshot = {
    cycle, takenAt: input.takenAt, durationMs: 10,
    clusters: [makeCluster("east"), makeCluster("west")],
    connect: [makeConnect([])],
    flows,
    transactionLedgers: {},
    malformedRecords: {},
  };
  const syncKey = (id: string) => `${id}|orders|0`;
  return {
    snapshot,
    history: { offsetSyncs: new Map(input.flows.map((id) => [syncKey(id), [{ upstream: BigInt(cycle), downstream: BigInt(cycle) }]])) },
    translations: new Map(),
    translationErrors: new Map(input.flows.map((id) => [id, `no checkpoints for ${id}`])),
    alerts: input.flows.map((id) => makeLagAlert(id, input.takenAt)),
    risks: input.flows.map((id) => makeRisk(id, input.takenAt)),
    progress: new ProgressWindow(300_000).record(snapshot),
    audit: new Map(),
    builtAt: input.takenAt + 5,
    offsetSyncsHeld: new Map(input.flows.map((id) => [syncKey(id), 40])),
    shardHolding: { count: 4, held: input.held },
  };
}

function makeLagAlert(flow: string, at: number): AlertRecord {
  return {
    id: `alert-${flow}`, key: `REPLICATION_LAG|${flow}|orders|0`, type: "REPLICATION_LAG", severity: "warning", state: "firing",
    acknowledged: null, flow, cluster: null, topic: "orders", partition: 0, group: null, summary: `lag on ${flow}`, evidence: {},
    firstSeen: at, lastSeen: at, resolvedAt: null,
  };
}

function makeRisk(flow: string, at: number): RiskRecord {
  return {
    key: `COMMIT_WITHOUT_LEADER_EPOCH|${flow}|g1`, type: "COMMIT_WITHOUT_LEADER_EPOCH", severity: "warning", flow, cluster: null,
    topic: null, partition: null, group: "g1", summary: `g1 on ${flow}`, evidence: {}, firstSeen: at, lastSeen: at,
  };
}
