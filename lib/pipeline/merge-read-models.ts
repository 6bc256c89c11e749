import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import { listSyncHistories, readSyncHistories } from "@/lib/collector/sync-history";
import type { ProgressReading, ProgressSample } from "./progress-window";
import type { ReadModel } from "./read-model";

/**
 * One read model from the models several collectors published, one per collector. What it assumes: each flow, alert
 * and risk is in one collector's model (its shard's owner's); clusters and Connect clusters are in every collector's
 * (each reads them all to find the flows). When two models hold the same one (a cluster read by both; a shard moved
 * and the old owner's model was not restricted: shard-coverage.ts), the newer model's (later `snapshot.takenAt`)
 * wins. Lists are concatenated in shard order; the merged snapshot is as old as its oldest part (its `takenAt`, and
 * `builtAt`, are the minimum: no shard looks fresher than it is, a dead collector's flows included) and its cycle is
 * the highest shard cycle.
 */
export function mergeReadModels(models: readonly ReadModel[]): ReadModel | null {
  if (models.length <= 1) return models[0] ?? null;
  // Oldest first, so that a later (newer) model's entry replaces an older one's under the same key.
  const byAge = [...models].sort((a, b) => a.snapshot.takenAt - b.snapshot.takenAt);
  const snapshots = byAge.map((m) => m.snapshot);
  const snapshot: Snapshot = {
    cycle: Math.max(...snapshots.map((s) => s.cycle)),
    takenAt: Math.min(...snapshots.map((s) => s.takenAt)),
    durationMs: Math.max(...snapshots.map((s) => s.durationMs)),
    clusters: mergeByKey(snapshots.map((s) => s.clusters), (c) => c.alias),
    connect: mergeByKey(snapshots.map((s) => s.connect), (c) => c.name),
    flows: mergeByKey(snapshots.map((s) => s.flows), (f) => f.id),
    transactionLedgers: Object.assign({}, ...snapshots.map((s) => s.transactionLedgers ?? {})),
    malformedRecords: Object.assign({}, ...snapshots.map((s) => s.malformedRecords)),
  };
  const history: CollectorHistory = { offsetSyncs: new Map(byAge.flatMap((m) => [...listSyncHistories(m.history.offsetSyncs)])) };
  return Object.freeze({
    snapshot,
    history,
    translations: mergeMaps(byAge.map((m) => m.translations)),
    translationErrors: mergeMaps(byAge.map((m) => m.translationErrors)),
    alerts: mergeByKey(byAge.map((m) => m.alerts), (a) => a.id),
    risks: mergeByKey(byAge.map((m) => m.risks), (r) => r.key),
    progress: mergeProgress(byAge.map((m) => m.progress)),
    audit: mergeMaps(byAge.map((m) => m.audit)),
    builtAt: Math.min(...byAge.map((m) => m.builtAt)),
    offsetSyncsHeld: mergeHeldCounts(byAge),
  });
}

/** Every item of every list, once per key: at the position it first appeared, the last list's value. */
function mergeByKey<T>(lists: readonly (readonly T[])[], keyOf: (item: T) => string): T[] {
  const merged = new Map<string, T>();
  for (const list of lists) for (const item of list) merged.set(keyOf(item), item);
  return [...merged.values()];
}

/** Per key, the count of the model whose offset syncs the merged history took (the newest holding the key). */
function mergeHeldCounts(byAge: readonly ReadModel[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const model of byAge) {
    for (const key of readSyncHistories(model.history.offsetSyncs).keys()) {
      const count = model.offsetSyncsHeld?.get(key);
      if (count === undefined) held.delete(key);
      else held.set(key, count);
    }
  }
  return held;
}

function mergeMaps<K, V>(maps: readonly ReadonlyMap<K, V>[]): Map<K, V> {
  return new Map(maps.flatMap((m) => [...m]));
}

/** Per flow, each shard's catch-up samples; the reference exists when every shard has one (else the estimate waits). */
function mergeProgress(readings: readonly ProgressReading[]): ProgressReading {
  const merge = (samples: readonly ProgressSample[]): ProgressSample => ({
    at: Math.min(...samples.map((s) => s.at)),
    flows: mergeMaps(samples.map((s) => s.flows)),
  });
  const references = readings.map((r) => r.reference);
  const complete = references.every((r): r is ProgressSample => r !== null);
  return { current: merge(readings.map((r) => r.current)), reference: complete ? merge(references) : null };
}
