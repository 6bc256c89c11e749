import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { TranslationSample } from "@/lib/store";
import { type FlowTranslation, type ReplayOptions, SyncModelCache, translateSnapshotFlow } from "@/lib/translation";

/**
 * Translates every flow of each cycle's snapshot, reusing the replayed sync models between cycles (only the
 * syncs that arrived since are replayed). The pipeline keeps one; the group pages and readiness read its result.
 */
export class FlowTranslator {
  private readonly cache: SyncModelCache;

  constructor(options: { replay?: ReplayOptions } = {}) {
    this.cache = new SyncModelCache(options.replay);
  }

  /** The translation of every flow of `snapshot`, per flow id. */
  translateCycle(snapshot: Snapshot, history: CollectorHistory): Map<string, FlowTranslation> {
    const translations = new Map(
      snapshot.flows.map((flow) => [flow.id, translateSnapshotFlow(snapshot, flow, history.offsetSyncs, snapshot.takenAt, { cache: this.cache })]),
    );
    this.cache.endCycle();
    return translations;
  }
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
