import type { PartitionState, PreviousEpochEnd, Snapshot } from "@/lib/collector/types";
import { readClusterColumns, TopicFlag } from "./cluster-columns";
import { isClusterFresh } from "./snapshot-views";
import { FindingType, type HeldEvent } from "./types";

/** Offsets `first`–`last` (inclusive) that existed and are gone; `exact` from the epoch's end offset. */
export interface LostRange {
  first: bigint;
  last: bigint;
  exact: boolean;
}

/**
 * The records a rise of the leader epoch truncated, from the collector's last known high watermark
 * and the new leader's end offset of that mark's epoch (`previousEpochEnd`, OffsetForLeaderEpoch):
 * - exact, when the end offset was read: lost [end, knownLogEnd − 1] when end < knownLogEnd. The
 *   high watermark is what every in-sync replica held (acknowledged to acks=all producers); a clean
 *   leader (in the ISR) starts its epoch at its log end, ≥ that watermark (Partition.makeLeader,
 *   LeaderEpochFileCache.endOffsetFor), so a lower end offset means committed records are gone,
 *   however far producers refilled the log since and however long the partition was OFFLINE.
 * - otherwise (the read failed) a LOWER bound from the log end: logEnd now < knownLogEnd → lost
 *   [logEnd, knownLogEnd − 1]; it misses a partition refilled before this cycle.
 */
export function findLostRange(end: PreviousEpochEnd, now: PartitionState): LostRange | null {
  if (end.endOffset !== null) return end.endOffset < end.knownLogEnd ? { first: end.endOffset, last: end.knownLogEnd - 1n, exact: true } : null;
  if (now.logEnd === null || now.logEnd >= end.knownLogEnd) return null;
  return { first: now.logEnd, last: end.knownLogEnd - 1n, exact: false };
}

/** A truncation of a source partition seen this cycle or held (UNCLEAN_TRUNCATION). */
export interface KnownTruncation {
  /** The first lost offset: where the new leader's log diverges (exact) or its log end then (lower bound). */
  first: bigint;
  last: bigint;
  /** The leader epoch that truncated. */
  epoch: number;
}

/**
 * Truncations per `<cluster>|<topic>|<partition>`, listed on the first question: only partitions that show a reset,
 * a move back or a re-copy ask, and most cycles none does (listing walks every partition of every fresh cluster:
 * ~20 ms a cycle at 100,000 partitions).
 */
export interface TruncationIndex {
  /** The snapshot and held events the index lists truncations of. */
  readonly current: Snapshot;
  readonly events: readonly HeldEvent[];
  /** The truncations, once asked for. */
  listed: ReadonlyMap<string, KnownTruncation> | null;
}

/**
 * The truncations that explain what other rules would read as a reset, a move back or a re-copy on
 * a source partition (one event, one alert): those seen this cycle (a fresh cluster's partition
 * whose epoch rose above its mark with records lost) and the UNCLEAN_TRUNCATION events held. Listed when
 * findTruncation first asks.
 */
export function indexTruncations(current: Snapshot, events: readonly HeldEvent[]): TruncationIndex {
  return { current, events, listed: null };
}

function listTruncations(current: Snapshot, events: readonly HeldEvent[]): ReadonlyMap<string, KnownTruncation> {
  const index = new Map<string, KnownTruncation>();
  for (const e of events) {
    const f = e.finding;
    const { firstLostOffset: first, lastLostOffset: last, newLeaderEpoch: epoch } = f.evidence;
    if (f.type !== FindingType.UNCLEAN_TRUNCATION || f.cluster === undefined || f.topic === undefined || f.partition === undefined) continue;
    if (typeof first !== "string" || typeof last !== "string" || typeof epoch !== "number") continue;
    index.set(truncationKey(f.cluster, f.topic, f.partition), { first: BigInt(first), last: BigInt(last), epoch });
  }
  for (const cluster of current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    const { topicFlags } = readClusterColumns(cluster);
    for (let t = 0; t < cluster.topics.length; t++) {
      // Only a topic with previousEpochEnd read can have lost records (cluster-columns.ts).
      if ((topicFlags[t]! & TopicFlag.EPOCH_END) === 0) continue;
      for (const p of cluster.topics[t]!.partitions) {
        const lost = p.previousEpochEnd === undefined ? null : findLostRange(p.previousEpochEnd, p);
        if (lost !== null) index.set(truncationKey(cluster.alias, p.topic, p.partition), { first: lost.first, last: lost.last, epoch: p.leaderEpoch });
      }
    }
  }
  return index;
}

/** The truncation of a source partition, if one is seen or held. */
export function findTruncation(index: TruncationIndex, cluster: string, topic: string, partition: number): KnownTruncation | undefined {
  index.listed ??= listTruncations(index.current, index.events);
  return index.listed.size === 0 ? undefined : index.listed.get(truncationKey(cluster, topic, partition));
}

function truncationKey(cluster: string, topic: string, partition: number): string {
  return `${cluster}|${topic}|${partition}`;
}
