import { ownerOfFindingKey } from "@/lib/alerts/alert-scope";
import { shardOf } from "@/lib/collector/shards";
import { listSyncHistories } from "@/lib/collector/sync-history";
import type { ProgressSample } from "./progress-window";
import type { ReadModel, ShardHolding } from "./read-model";

/**
 * How much of an older published model newer ones replace: `none` (it holds no shard a newer model held), `all`
 * (every shard it held, a newer model held: it has nothing left to serve) or `partial`. A model without a holding
 * (role all, or a collector of an older version) is never replaced by shard; the merge's newer-wins by key applies.
 */
export type Coverage = "none" | "partial" | "all";

export function judgeCoverage(holding: ShardHolding | undefined, newer: readonly ShardHolding[]): Coverage {
  if (holding === undefined || newer.length === 0) return "none";
  // Another shard count (scaleOut.shards changed between versions): the shards are not comparable; owner by owner.
  if (newer.some((h) => h.count !== holding.count)) return "partial";
  const covered = holding.held.filter((s) => newer.some((h) => h.held.includes(s))).length;
  return covered === holding.held.length ? "all" : covered === 0 ? "none" : "partial";
}

/** Whether the holdings together hold every shard of their count: then every owner is covered, by some model. */
export function coversEveryShard(holdings: readonly ShardHolding[]): boolean {
  return holdings.some((h) => new Set(holdings.filter((o) => o.count === h.count).flatMap((o) => o.held)).size === h.count);
}

/** Whether a newer model held the shard of `owner` (a flow id, cluster alias or Connect cluster name). */
export function isCoveredOwner(owner: string, newer: readonly ShardHolding[]): boolean {
  return newer.some((h) => h.held.includes(shardOf(owner, h.count)));
}

/** Whether `model` has a flow, alert or risk whose owner newer models did not cover (else it serves nothing of its own). */
export function hasUncoveredOwner(model: ReadModel, newer: readonly ShardHolding[]): boolean {
  const uncovered = (owner: string) => !isCoveredOwner(owner, newer);
  return model.snapshot.flows.some((f) => uncovered(f.id)) || model.alerts.some((a) => uncovered(ownerOfFindingKey(a.key))) ||
    model.risks.some((r) => uncovered(ownerOfFindingKey(r.key)));
}

/**
 * The part of `model` whose owners newer models did not cover: its flows, their alerts and risks (by the owner in
 * their key), translations, audits, catch-up samples and offset syncs. Clusters, Connect clusters and transaction
 * ledgers stay: every collector reads them all, and the merge takes the newest model's.
 */
export function restrictToUncovered(model: ReadModel, newer: readonly ShardHolding[]): ReadModel {
  const verdicts = new Map<string, boolean>();
  const keeps = (owner: string) => {
    let kept = verdicts.get(owner);
    if (kept === undefined) verdicts.set(owner, (kept = !isCoveredOwner(owner, newer)));
    return kept;
  };
  const keepsKey = (key: string) => keeps(flowOfPartitionKey(key));
  const restrictSample = (sample: ProgressSample): ProgressSample => ({ at: sample.at, flows: filterMap(sample.flows, keeps) });
  return {
    ...model,
    snapshot: { ...model.snapshot, flows: model.snapshot.flows.filter((f) => keeps(f.id)) },
    history: { offsetSyncs: new Map([...listSyncHistories(model.history.offsetSyncs)].filter(([key]) => keepsKey(key))) },
    translations: filterMap(model.translations, keeps),
    translationErrors: filterMap(model.translationErrors, keeps),
    alerts: model.alerts.filter((a) => keeps(ownerOfFindingKey(a.key))),
    risks: model.risks.filter((r) => keeps(ownerOfFindingKey(r.key))),
    progress: { current: restrictSample(model.progress.current), reference: model.progress.reference && restrictSample(model.progress.reference) },
    audit: filterMap(model.audit, keeps),
    offsetSyncsHeld: model.offsetSyncsHeld && filterMap(model.offsetSyncsHeld, keepsKey),
  };
}

function filterMap<V>(map: ReadonlyMap<string, V>, keeps: (key: string) => boolean): Map<string, V> {
  return new Map([...map].filter(([key]) => keeps(key)));
}

/** `<flowId>|<topic>|<partition>` → the flow id (a flow id holds no `|`: lib/config/schema.ts). */
function flowOfPartitionKey(key: string): string {
  return key.slice(0, key.indexOf("|"));
}
