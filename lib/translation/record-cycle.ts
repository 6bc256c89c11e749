/**
 * Records every flow's offset translation after each collector cycle, so the group page can chart
 * re-reads against the group's lag over time. Wire it once, where the runtime is created:
 *   attachTranslationRecorder(collector, store);
 */
import type { CycleListener } from "@/lib/collector/collector";
import { flowPartitionKey } from "@/lib/collector/types";
import type { Store, TranslationSample } from "@/lib/store";
import { type ReplayOptions, SyncModelCache } from "./sync-model";
import { translateSnapshotFlow } from "./translate-flow";
import type { FlowTranslation } from "./types";

/** The part of the Collector the recorder needs. */
export interface CycleSource {
  onCycle(listener: CycleListener): void;
}

/** The translations of the latest cycle, per flow id (the translation detectors read them). */
export interface TranslationRecorder {
  latest(): ReadonlyMap<string, FlowTranslation>;
}

/**
 * Registers a cycle listener that translates every flow of the new snapshot (reusing replayed
 * sync models between cycles) and writes one sample per group × partition to the store. Errors
 * are logged by the collector's listener loop and never stop a cycle. Register it before the
 * alerting listener: listeners run in order, so alerting sees this cycle's translations.
 */
export function attachTranslationRecorder(collector: CycleSource, store: Pick<Store, "recordTranslationSamples">, options: { replay?: ReplayOptions } = {}): TranslationRecorder {
  const cache = new SyncModelCache(options.replay);
  let latest = new Map<string, FlowTranslation>();
  collector.onCycle((snapshot, _previous, history) => {
    cache.retain(new Set(snapshot.flows.flatMap((f) => f.partitions.map((p) => flowPartitionKey(f.id, p.topic, p.partition)))));
    const next = new Map<string, FlowTranslation>();
    for (const flow of snapshot.flows) {
      const translation = translateSnapshotFlow(snapshot, flow, history.offsetSyncs, snapshot.takenAt, { cache });
      store.recordTranslationSamples(flow.id, listTranslationSamples(translation), snapshot.takenAt);
      next.set(flow.id, translation);
    }
    latest = next;
  });
  return { latest: () => latest };
}

/** One store sample per group × partition of a flow translation (conservative re-read counts). */
export function listTranslationSamples(ft: FlowTranslation): TranslationSample[] {
  return ft.groups.flatMap((g) =>
    g.partitions.map((p) => ({
      group: g.group,
      topic: p.topic,
      partition: p.partition,
      committed: p.committed,
      translated: p.translation.kind === "translated" ? p.translation.downstream : null,
      checkpointDownstream: p.checkpoint?.downstream ?? null,
      idealLow: p.ideal.kind === "exact" ? p.ideal.downstream : p.ideal.kind === "bracket" ? p.ideal.low : null,
      idealHigh: p.ideal.kind === "exact" ? p.ideal.downstream : p.ideal.kind === "bracket" ? p.ideal.high : null,
      reread: p.reread?.records ?? null,
      failoverReread: p.failoverReread?.records ?? null,
      groupLag: p.groupLag,
    })),
  );
}
