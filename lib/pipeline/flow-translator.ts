import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { TranslationSampleColumns } from "@/lib/store";
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
 * One store sample per group × partition of a flow translation (conservative re-read counts), as columns filled in
 * place (190,000 samples a cycle at 100,000 partitions: no object per sample, no array per group to flatten).
 */
export function listTranslationSamples(ft: FlowTranslation): TranslationSampleColumns {
  let count = 0;
  for (const g of ft.groups) count += g.partitions.length;
  const c = {
    groups: new Array<string>(count),
    topics: new Array<string>(count),
    partitions: new Array<number>(count),
    committed: new Array<bigint>(count),
    translated: new Array<bigint | null>(count),
    checkpointDownstream: new Array<bigint | null>(count),
    idealLow: new Array<bigint | null>(count),
    idealHigh: new Array<bigint | null>(count),
    reread: new Array<bigint | null>(count),
    failoverReread: new Array<bigint | null>(count),
    groupLag: new Array<bigint | null>(count),
  };
  let i = 0;
  for (const g of ft.groups) {
    for (const p of g.partitions) {
      const { ideal } = p;
      c.groups[i] = g.group;
      c.topics[i] = p.topic;
      c.partitions[i] = p.partition;
      c.committed[i] = p.committed;
      c.translated[i] = p.translation.kind === "translated" ? p.translation.downstream : null;
      c.checkpointDownstream[i] = p.checkpoint?.downstream ?? null;
      c.idealLow[i] = ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.low : null;
      c.idealHigh[i] = ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.high : null;
      c.reread[i] = p.reread?.records ?? null;
      c.failoverReread[i] = p.failoverReread?.records ?? null;
      c.groupLag[i] = p.groupLag;
      i++;
    }
  }
  return c;
}
