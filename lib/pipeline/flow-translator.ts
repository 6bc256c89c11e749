import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { TranslationSample } from "@/lib/store";
import { CheckpointIndex, type FlowTranslation, type ReplayOptions, SyncModelCache, translateSnapshotFlow } from "@/lib/translation";

/**
 * Translates every flow of each cycle's snapshot, reusing the replayed sync models between cycles (only the
 * syncs that arrived since are replayed) and each flow's checkpoint index (only the checkpoints MM2 emitted
 * since are set). The pipeline keeps one; the group pages and readiness read its result.
 */
export class FlowTranslator {
  private readonly cache: SyncModelCache;
  private checkpointIndexes = new Map<string, CheckpointIndex>();

  constructor(options: { replay?: ReplayOptions } = {}) {
    this.cache = new SyncModelCache(options.replay);
  }

  /** The translation of every flow of `snapshot`, per flow id. */
  translateCycle(snapshot: Snapshot, history: CollectorHistory): Map<string, FlowTranslation> {
    // Flows gone from the snapshot lose their index (the sync models keep theirs for a while: SyncModelCache).
    const indexes = new Map(snapshot.flows.map((flow) => [flow.id, this.checkpointIndexes.get(flow.id) ?? new CheckpointIndex()]));
    this.checkpointIndexes = indexes;
    const translations = new Map(
      snapshot.flows.map((flow) => {
        const options = { cache: this.cache, checkpointIndex: indexes.get(flow.id) };
        return [flow.id, translateSnapshotFlow(snapshot, flow, history.offsetSyncs, snapshot.takenAt, options)];
      }),
    );
    this.cache.endCycle();
    return translations;
  }
}

/**
 * One store sample per group × partition of a flow translation (conservative re-read counts), in one array filled
 * in place (190,000 samples a cycle at 100,000 partitions: no array per group to flatten).
 */
export function listTranslationSamples(ft: FlowTranslation): TranslationSample[] {
  const samples: TranslationSample[] = [];
  for (const g of ft.groups) {
    for (const p of g.partitions) {
      const { ideal } = p;
      samples.push({
        group: g.group,
        topic: p.topic,
        partition: p.partition,
        committed: p.committed,
        translated: p.translation.kind === "translated" ? p.translation.downstream : null,
        checkpointDownstream: p.checkpoint?.downstream ?? null,
        idealLow: ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.low : null,
        idealHigh: ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.high : null,
        reread: p.reread?.records ?? null,
        failoverReread: p.failoverReread?.records ?? null,
        groupLag: p.groupLag,
      });
    }
  }
  return samples;
}
