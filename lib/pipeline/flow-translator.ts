import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import {
  CheckpointIndex,
  collectSampleColumns,
  type FlowTranslation,
  type ReplayOptions,
  SyncModelCache,
  translateSnapshotFlow,
  type TranslationSampleColumns,
} from "@/lib/translation";

/**
 * Translates every flow of each cycle's snapshot, reusing the replayed sync models between cycles (only the
 * syncs that arrived since are replayed) and each flow's checkpoint index (only the checkpoints MM2 emitted
 * since are set). The pipeline keeps one; the group pages and readiness read its result. A cycle's translations are
 * read until the next cycle's are published (the read model), never after: their row columns are reused two cycles
 * later (SyncModelCache's `reusesRows`).
 */
export class FlowTranslator {
  private readonly cache: SyncModelCache;
  private checkpointIndexes = new Map<string, CheckpointIndex>();

  constructor(options: { replay?: ReplayOptions } = {}) {
    this.cache = new SyncModelCache(options.replay, true);
  }

  /** The translation of every flow of `snapshot`, per flow id. */
  translateCycle(snapshot: Snapshot, history: CollectorHistory, failed?: Map<string, string>): Map<string, FlowTranslation> {
    // Flows gone from the snapshot lose their index (the sync models keep theirs for a while: SyncModelCache).
    const indexes = new Map(snapshot.flows.map((flow) => [flow.id, this.checkpointIndexes.get(flow.id) ?? new CheckpointIndex()]));
    this.checkpointIndexes = indexes;
    const translations = new Map<string, FlowTranslation>();
    for (const flow of snapshot.flows) {
      const options = { cache: this.cache, checkpointIndex: indexes.get(flow.id) };
      // One flow's failure (e.g. an offset past 2^53, docs/translation-columns.md) leaves the others translated.
      try {
        translations.set(flow.id, translateSnapshotFlow(snapshot, flow, history.offsetSyncs, snapshot.takenAt, options));
      } catch (err) {
        if (failed === undefined) throw err;
        failed.set(flow.id, err instanceof Error ? err.message : String(err));
      }
    }
    this.cache.endCycle();
    return translations;
  }
}

/**
 * The store's sample of every group × partition of a flow translation (conservative re-read counts), as columns read
 * from the rows' columns (lib/translation/sample-columns.ts): 190,000 samples a cycle at 100,000 partitions make no
 * object or bigint per sample.
 */
export function listTranslationSamples(ft: FlowTranslation): TranslationSampleColumns {
  return collectSampleColumns(ft);
}
