/**
 * Read-only views over a Snapshot that several detectors share: freshness (never judge on stale
 * or unknown data), lookups by flow partition, and the number/time formats used in summaries.
 * Lookups go through indexes built once per snapshot (snapshots are immutable; a cycle's current
 * snapshot is the next cycle's previous one), so no detector scans a list per partition: at 100,000
 * flow partitions a linear `find` per partition is 10^10 steps.
 */
import type { TruncationIndex } from "./truncation-index";
import { findEncodedSlot, generationOf, readFlowColumns, slotOf, type FlowColumns } from "@/lib/collector/flow-columns";
import {
  type ClusterSnapshot,
  type ConsumerGroupState,
  type Flow,
  type OffsetSyncPoint,
  type Snapshot,
  type TopicConfigs,
  type TopicState,
} from "@/lib/collector/types";
import type { Thresholds } from "@/lib/config/thresholds";
import type { FlowPartition } from "@/lib/collector/types";

/** What every detector receives. */
export interface DetectorContext {
  previous: Snapshot | null;
  current: Snapshot;
  now: number;
  thresholds: Thresholds;
  /**
   * Per `flowPartitionKey`, the offset syncs not examined in an earlier cycle, preceded by the last
   * examined one (so consecutive pairs are exactly the new steps); only partitions fresh in this and
   * the previous cycle, and only where there is at least one new step.
   */
  newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>;
  /** Every offset sync the collector holds per `flowPartitionKey`, oldest first (CollectorHistory, bounded). */
  syncHistory: ReadonlyMap<string, readonly OffsetSyncPoint[]>;
  /** The partitions fresh in this cycle and the previous one, with both views and their new syncs. */
  judged: readonly JudgedPartition[];
  /** Source partitions truncated by an unclean election, seen this cycle or held (truncation-index.ts). */
  truncations: TruncationIndex;
}

/** A flow partition fresh now and in the previous cycle: what the event detectors compare. */
export interface JudgedPartition {
  view: FlowPartitionView;
  before: FlowPartition;
  /** ctx.newSyncs of the partition, or none. */
  syncs: readonly OffsetSyncPoint[];
}

const noSyncs: readonly OffsetSyncPoint[] = [];

/**
 * The partitions fresh in `current` and in `previous`, in `current`'s order: each found in the previous cycle by its
 * stable slot (flow-columns.ts), without hashing its key.
 */
export function listJudgedPartitions(current: Snapshot, previous: Snapshot | null, newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>): JudgedPartition[] {
  const judged: JudgedPartition[] = [];
  if (previous === null) return judged;
  const before = indexFreshFlowColumns(previous);
  if (before.size === 0) return judged;
  let flow: Flow | undefined;
  let old: FreshFlowColumns | undefined;
  for (const view of listFreshFlowPartitions(current)) {
    if (view.flow !== flow) old = before.get((flow = view.flow).id);
    if (old === undefined) continue;
    const at = old.columns.knownPositionOf[view.slot] ?? -1;
    if (at < 0) continue;
    judged.push({ view, before: old.flow.partitions[at]!, syncs: newSyncs.size === 0 ? noSyncs : (newSyncs.get(view.key) ?? noSyncs) });
  }
  return judged;
}

/** One partition of one flow, with its history key and its slot in the flow's columns (flow-columns.ts). */
export interface FlowPartitionView {
  key: string;
  flow: Flow;
  partition: FlowPartition;
  slot: number;
}

/** A fresh flow of a snapshot and its columns. */
interface FreshFlowColumns {
  flow: Flow;
  columns: FlowColumns;
}

/** A cluster's data is usable when it was read this cycle (reachable and not carried over). */
export function isClusterFresh(cluster: ClusterSnapshot | undefined): cluster is ClusterSnapshot {
  return cluster !== undefined && cluster.reachable && !cluster.stale;
}

/** The indexes of one snapshot, built on first use. */
interface SnapshotIndex {
  clusters: Map<string, ClusterSnapshot>;
  topics: Map<string, Map<string, TopicState>>;
  all: FlowPartitionView[] | null;
  fresh: FlowPartitionView[] | null;
  /** Fresh flows' columns by flow id, and by slot generation. */
  freshColumns: Map<string, FreshFlowColumns> | null;
  freshGenerations: Map<number, FlowColumns> | null;
  /** findTopic's last question and answer. */
  lastTopic: { alias: string; topic: string; found: TopicState | undefined } | null;
}

const indexes = new WeakMap<Snapshot, SnapshotIndex>();
/**
 * The last two snapshots asked about (a cycle's current and previous) and their indexes: detectors ask per
 * partition, hundreds of thousands of times a cycle at 100,000 partitions, and a WeakMap lookup costs more than
 * the lookup it serves. Keeps two snapshots alive at most, and one between cycles (keepOnlySnapshotIndex).
 */
let recent: [Snapshot, SnapshotIndex][] = [];

/**
 * Ends a cycle's lookups: only `current`'s index stays at hand. The previous snapshot, which the pipeline drops
 * once the cycle is done, is not kept alive here until the next cycle asks about another one (at 100,000
 * partitions it and its indexes were 58 MiB of the heap between cycles, and during the next cycle's translation).
 */
export function keepOnlySnapshotIndex(current: Snapshot): void {
  recent = recent.filter(([snapshot]) => snapshot === current);
}

function indexOf(snapshot: Snapshot): SnapshotIndex {
  const first = recent[0];
  const second = recent[1];
  if (first?.[0] === snapshot) return first[1];
  if (second?.[0] === snapshot) return second[1];
  const index = lookUpIndex(snapshot);
  recent = first === undefined ? [[snapshot, index]] : [[snapshot, index], first];
  return index;
}

function lookUpIndex(snapshot: Snapshot): SnapshotIndex {
  let index = indexes.get(snapshot);
  if (index === undefined) {
    // The first of equal aliases or names wins, as `find` would.
    const clusters = new Map<string, ClusterSnapshot>();
    for (const c of snapshot.clusters) if (!clusters.has(c.alias)) clusters.set(c.alias, c);
    index = { clusters, topics: new Map(), all: null, fresh: null, freshColumns: null, freshGenerations: null, lastTopic: null };
    indexes.set(snapshot, index);
  }
  return index;
}

/** Finds a cluster by alias. */
export function findCluster(snapshot: Snapshot, alias: string): ClusterSnapshot | undefined {
  return indexOf(snapshot).clusters.get(alias);
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
export function listFreshFlowPartitions(snapshot: Snapshot): readonly FlowPartitionView[] {
  const index = indexOf(snapshot);
  if (index.fresh === null) {
    const fresh = new Set(snapshot.flows.filter((flow) => isFlowFresh(snapshot, flow)));
    index.fresh = listFlowPartitions(snapshot).filter((view) => fresh.has(view.flow) && view.partition.unknown === null);
  }
  return index.fresh;
}

/** Every partition of every flow, fresh or not, in snapshot order. */
export function listFlowPartitions(snapshot: Snapshot): readonly FlowPartitionView[] {
  const index = indexOf(snapshot);
  if (index.all === null) {
    const views: FlowPartitionView[] = [];
    for (const flow of snapshot.flows) {
      const { slotAt, keys } = readFlowColumns(flow.id, flow.partitions);
      for (let i = 0; i < flow.partitions.length; i++) {
        const slot = slotAt[i]!;
        views.push({ key: keys[slot]!, flow, partition: flow.partitions[i]!, slot });
      }
    }
    index.all = views;
  }
  return index.all;
}

/**
 * The groups of a fresh cluster whose committed offsets were read this cycle; a group whose
 * OffsetFetch failed carries older offsets (`error`) and is not judged.
 */
export function listKnownGroups(cluster: ClusterSnapshot): ConsumerGroupState[] {
  return cluster.groups.filter((g) => g.error === null);
}

/** The fresh flows of a snapshot (isFlowFresh) with their columns, by flow id (the last of equal ids). */
function indexFreshFlowColumns(snapshot: Snapshot): ReadonlyMap<string, FreshFlowColumns> {
  const index = indexOf(snapshot);
  if (index.freshColumns === null) {
    const byId = new Map<string, FreshFlowColumns>();
    for (const flow of snapshot.flows) if (isFlowFresh(snapshot, flow)) byId.set(flow.id, { flow, columns: readFlowColumns(flow.id, flow.partitions) });
    index.freshColumns = byId;
  }
  return index.freshColumns;
}

const noFreshKeys = (): boolean => false;

/**
 * Whether a flow partition key names a partition whose data is fresh in `snapshot` (listFreshFlowPartitions): found
 * by its stable slot, in a map kept across cycles, not in one built per snapshot. None for a missing snapshot.
 */
export function createFreshKeyTest(snapshot: Snapshot | null): (key: string) => boolean {
  if (snapshot === null) return noFreshKeys;
  const index = indexOf(snapshot);
  if (index.freshGenerations === null) {
    const byGeneration = new Map<number, FlowColumns>();
    for (const { columns } of indexFreshFlowColumns(snapshot).values()) byGeneration.set(columns.generation, columns);
    index.freshGenerations = byGeneration;
  }
  const byGeneration = index.freshGenerations;
  if (byGeneration.size === 0) return noFreshKeys;
  return (key) => {
    const at = findEncodedSlot(key);
    if (at < 0) return false;
    const columns = byGeneration.get(generationOf(at));
    return columns !== undefined && (columns.knownPositionOf[slotOf(at)] ?? -1) >= 0;
  };
}

/**
 * Finds a topic on a cluster. Detectors ask per partition, and a topic's partitions come one after another: the
 * last answer per snapshot is kept and given again for the same question without two map lookups.
 */
export function findTopic(snapshot: Snapshot, alias: string, topic: string): TopicState | undefined {
  const index = indexOf(snapshot);
  const last = index.lastTopic;
  if (last !== null && last.topic === topic && last.alias === alias) return last.found;
  let topics = index.topics.get(alias);
  if (topics === undefined) {
    topics = new Map();
    for (const t of index.clusters.get(alias)?.topics ?? []) if (!topics.has(t.name)) topics.set(t.name, t);
    index.topics.set(alias, topics);
  }
  const found = topics.get(topic);
  index.lastTopic = { alias, topic, found };
  return found;
}

const compactedByConfigs = new WeakMap<TopicConfigs, boolean>();

/** Compacted topics have upstream offset gaps by design; null configs (not read yet) count as unknown. */
export function isCompacted(configs: TopicConfigs | null | undefined): boolean | null {
  if (configs === null || configs === undefined) return null;
  let compacted = compactedByConfigs.get(configs);
  if (compacted === undefined) {
    compacted = configs.cleanupPolicy.split(",").some((p) => p.trim() === "compact");
    compactedByConfigs.set(configs, compacted);
  }
  return compacted;
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
