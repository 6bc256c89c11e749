/**
 * Compares every real checkpoint MM2 emitted with the model's translation of the same upstream
 * offset, the model fed with the syncs the collector read.
 *
 * Which syncs had MirrorCheckpointTask read when it emitted a checkpoint? The checkpoint record's
 * timestamp is `System.currentTimeMillis()` taken in sourceRecordsForGroup just before it lists
 * the group's offsets (one admin round trip) and translates them; the store's consumer reads each
 * sync within milliseconds of its CreateTime (linger 5 ms, one fetch). So the task had read every
 * sync written more than `before` ms before the checkpoint and none written more than `after` ms
 * after it. Every prefix in between is a candidate. A pair is UNAMBIGUOUS when all candidate
 * prefixes give the same translation, which must then equal the real checkpoint; otherwise (a sync
 * written within the window; MM2 writes most syncs on its 5 s offset flush, so whole polls can
 * fall in the window) the real value must be one of the candidates' translations. A checkpoint
 * whose candidates reach past the collector's history (written after its last read) is EXCLUDED.
 */
import { replaySyncHistory } from "@/lib/translation";
import { readPointHistory } from "@/lib/collector/sync-history";
import { FlowSyncModels } from "@/lib/translation/sync-model";
import { toOptionalLong, type SyncPoint } from "@/lib/mm2";
import type { CheckpointRecord, SyncRecord, Timed } from "./kafka-truth";

/** Result of comparing all checkpoints of one upstream topic. */
export interface Comparison {
  /** Unambiguous + ambiguous pairs: every pair checked against the model. */
  compared: number;
  /** Unambiguous pairs whose single candidate equals the real checkpoint. */
  matched: number;
  /** Pairs with several candidate translations (the real value must be among them). */
  ambiguous: number;
  ambiguousOutside: string[];
  excluded: number;
  mismatches: string[];
  /** Candidates where the translation's numeric store (sync-slots.ts) differs from the bigint model: none expected. */
  numericDiffers: string[];
  /** Unambiguous pairs a replay of the WHOLE history (ignoring when MM2 emitted) would get wrong. */
  wrongWithFullHistory: number;
  byGroup: Map<string, number>;
}

/**
 * @param syncs the topic's offset syncs with CreateTime, in syncs-topic order (Kafka's formatter)
 * @param history the collector's history per partition (must be a prefix of `syncs` per partition)
 */
export function compareCheckpoints(
  upstreamTopic: string,
  syncs: readonly Timed<SyncRecord>[],
  history: (partition: number) => readonly SyncPoint[],
  checkpoints: readonly Timed<CheckpointRecord>[],
  window = { before: 300, after: 200 },
): Comparison {
  const result: Comparison = { compared: 0, matched: 0, ambiguous: 0, ambiguousOutside: [], excluded: 0, mismatches: [], numericDiffers: [], wrongWithFullHistory: 0, byGroup: new Map() };
  const stampsByPartition = new Map<number, number[]>();
  for (const s of syncs) {
    if (s.value.topic !== upstreamTopic) continue;
    const list = stampsByPartition.get(s.value.partition) ?? [];
    list.push(s.timestamp);
    stampsByPartition.set(s.value.partition, list);
  }
  for (const c of checkpoints) {
    const { partition, group, upstream, downstream } = c.value;
    const stamps = stampsByPartition.get(partition) ?? [];
    const held = history(partition);
    const kLo = stamps.filter((t) => t <= c.timestamp - window.before).length;
    const kHi = stamps.filter((t) => t <= c.timestamp + window.after).length;
    if (kHi > held.length) {
      result.excluded++;
      continue;
    }
    const tp = { topic: upstreamTopic, partition };
    const candidates = new Set<string>();
    for (let k = kLo; k <= kHi; k++) {
      const translated = toOptionalLong(replaySyncHistory(tp, held.slice(0, k)).translateDownstream(group, tp, upstream));
      const numeric = translateByNumbers(held.slice(0, k), upstream);
      if (numeric !== translated) result.numericDiffers.push(`${group} ${upstreamTopic}-${partition} upstream=${upstream} syncs ${k}: ${translated} by the model, ${numeric} by numbers`);
      candidates.add(translated === null ? "empty" : translated.toString());
    }
    const label = `${group} ${upstreamTopic}-${partition} upstream=${upstream} real=${downstream} model=[${[...candidates].join("|")}] at=${c.timestamp} syncs ${kLo}..${kHi}`;
    result.compared++;
    result.byGroup.set(group, (result.byGroup.get(group) ?? 0) + 1);
    if (candidates.size > 1) {
      result.ambiguous++;
      if (!candidates.has(downstream.toString())) result.ambiguousOutside.push(label);
      continue;
    }
    const full = toOptionalLong(replaySyncHistory(tp, held).translateDownstream(group, tp, upstream));
    if (full !== downstream) result.wrongWithFullHistory++;
    if (candidates.has(downstream.toString())) result.matched++;
    else result.mismatches.push(label);
  }
  return result;
}

/** The translation's own store (FlowSyncModels over SyncSlots, as numbers) fed `history`: Java's OptionalLong. */
function translateByNumbers(history: readonly SyncPoint[], upstream: bigint): bigint | null {
  if (history.length === 0) return null;
  const models = new FlowSyncModels();
  models.update(0, readPointHistory(history), 0);
  const slots = models.slots;
  const at = slots.findRun(0, Number(upstream));
  const syncUpstream = BigInt(slots.upstreamAt(at));
  const syncDownstream = BigInt(slots.downstreamAt(at));
  if (syncUpstream > upstream) return -1n;
  return syncUpstream === upstream ? syncDownstream : syncDownstream + 1n;
}
