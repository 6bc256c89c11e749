/**
 * Read-only views over a Snapshot that several detectors share: freshness (never judge on stale
 * or unknown data), lookups by flow partition, and the number/time formats used in summaries.
 */
import {
  flowPartitionKey,
  type ClusterSnapshot,
  type ConsumerGroupState,
  type Flow,
  type OffsetSyncPoint,
  type Snapshot,
  type TopicConfigs,
  type TopicState,
} from "@/lib/collector/types";
import type { Thresholds } from "./thresholds";
import type { FlowPartition } from "@/lib/collector/types";

/** What every detector receives. */
export interface DetectorContext {
  previous: Snapshot | null;
  current: Snapshot;
  now: number;
  thresholds: Thresholds;
  /**
   * Per `flowPartitionKey`, the offset syncs not examined in an earlier cycle, preceded by the last
   * examined one (so consecutive pairs are exactly the new steps). Only for fresh flows.
   */
  newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>;
}

/** One partition of one flow, with its history key. */
export interface FlowPartitionView {
  key: string;
  flow: Flow;
  partition: FlowPartition;
}

/** A cluster's data is usable when it was read this cycle (reachable and not carried over). */
export function isClusterFresh(cluster: ClusterSnapshot | undefined): cluster is ClusterSnapshot {
  return cluster !== undefined && cluster.reachable && !cluster.stale;
}

/** Finds a cluster by alias. */
export function findCluster(snapshot: Snapshot, alias: string): ClusterSnapshot | undefined {
  return snapshot.clusters.find((c) => c.alias === alias);
}

/**
 * A flow's partition data mixes both clusters (source offsets from the source, MM2's position and
 * target offsets from the target), so it is fresh only when both clusters are.
 */
export function isFlowFresh(snapshot: Snapshot, flow: Flow): boolean {
  return isClusterFresh(findCluster(snapshot, flow.source)) && isClusterFresh(findCluster(snapshot, flow.target));
}

/**
 * Every partition of every flow whose data is fresh in `snapshot`: both clusters fresh and no read
 * of the partition failed (`unknown`, e.g. ListOffsets failed on its leader, MM2's positions or
 * the offset syncs not read). Unknown partitions are neither judged nor resolved.
 */
export function listFreshFlowPartitions(snapshot: Snapshot): FlowPartitionView[] {
  const views: FlowPartitionView[] = [];
  for (const flow of snapshot.flows) {
    if (!isFlowFresh(snapshot, flow)) continue;
    for (const partition of flow.partitions) {
      if (partition.unknown !== null) continue;
      views.push({ key: flowPartitionKey(flow.id, partition.topic, partition.partition), flow, partition });
    }
  }
  return views;
}

/**
 * The groups of a fresh cluster whose committed offsets were read this cycle; a group whose
 * OffsetFetch failed carries older offsets (`error`) and is not judged.
 */
export function listKnownGroups(cluster: ClusterSnapshot): ConsumerGroupState[] {
  return cluster.groups.filter((g) => g.error === null);
}

/** Fresh flow partitions by `flowPartitionKey`; empty for a missing snapshot (first cycle). */
export function indexFreshFlowPartitions(snapshot: Snapshot | null): Map<string, FlowPartitionView> {
  const index = new Map<string, FlowPartitionView>();
  if (snapshot === null) return index;
  for (const view of listFreshFlowPartitions(snapshot)) index.set(view.key, view);
  return index;
}

/** Finds a topic on a cluster. */
export function findTopic(snapshot: Snapshot, alias: string, topic: string): TopicState | undefined {
  return findCluster(snapshot, alias)?.topics.find((t) => t.name === topic);
}

/** Compacted topics have upstream offset gaps by design; null configs (not read yet) count as unknown. */
export function isCompacted(configs: TopicConfigs | null | undefined): boolean | null {
  if (configs === null || configs === undefined) return null;
  return configs.cleanupPolicy.split(",").some((p) => p.trim() === "compact");
}

/** The larger of two offsets. */
export function maxOffset(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** The smaller of two offsets. */
export function minOffset(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** A record count with thousands separators, e.g. `12,345`. */
export function formatCount(count: bigint | number): string {
  return count.toLocaleString("en-US");
}

/** A range of offsets for a summary: `1200` or `1200–1699`. */
export function formatRange(first: bigint, last: bigint): string {
  return first === last ? `${first}` : `${first}–${last}`;
}

/** A duration for a summary: `~45 s`, `~12 min`, `~3.5 h`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `~${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `~${Math.round(ms / 60_000)} min`;
  return `~${(ms / 3_600_000).toFixed(1)} h`;
}

/** A wall-clock time in UTC for a summary: `03:14 UTC`. */
export function formatUtcTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 16)} UTC`;
}

/** `orders/2` — how operators name a partition. */
export function namePartition(topic: string, partition: number): string {
  return `${topic}/${partition}`;
}

/** The first few names and how many more: `a, b, c, d, e and 7 more`. */
export function summarizeNames(names: readonly string[], shown = 5): string {
  return names.slice(0, shown).join(", ") + (names.length > shown ? ` and ${names.length - shown} more` : "");
}

/** A count with its noun: `1 record`, `2,300 records`. */
export function countOf(count: bigint | number, noun: string): string {
  return `${formatCount(count)} ${count === 1 || count === 1n ? noun : `${noun}s`}`;
}
