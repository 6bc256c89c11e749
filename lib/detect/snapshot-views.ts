/**
 * Read-only views over a Snapshot that several detectors share: freshness (never judge on stale
 * or unknown data), lookups by flow partition, and the number/time formats used in summaries.
 * Lookups go through indexes built once per snapshot (snapshots are immutable; a cycle's current
 * snapshot is the next cycle's previous one), so no detector scans a list per partition: at 100,000
 * flow partitions a linear `find` per partition is 10^10 steps.
 */
import { readTopicPositions } from "./cluster-columns";
import type { TruncationIndex } from "./truncation-index";
import type { SyncHistories } from "@/lib/collector/sync-history";
import { findEncodedSlot, generationOf, readFlowColumns, slotOf, type FlowColumns } from "@/lib/collector/flow-columns";
import { readFlowPartition } from "@/lib/collector/flow-rows";
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
  syncHistory: SyncHistories;
  /** The partitions fresh in this cycle and the previous one, as columns per flow (listJudgedFlows). */
  judged: readonly JudgedFlow[];
  /** Source partitions truncated by an unclean election, seen this cycle or held (truncation-index.ts). */
  truncations: TruncationIndex;
}

/** A flow partition fresh now and in the previous cycle: what the event detectors compare (readJudged). */
export interface JudgedPartition {
  view: FlowPartitionView;
  before: FlowPartition;
  /** ctx.newSyncs of the partition, or none. */
  syncs: readonly OffsetSyncPoint[];
}

/**
 * One fresh flow's partitions fresh in this cycle and the previous one, as numbers: a detector reads the columns of
 * both cycles by slot and makes a JudgedPartition (readJudged) only for a partition whose numbers say it may have
 * something to report. At 100,000 healthy partitions nothing is made per partition.
 */
export interface JudgedFlow {
  flow: Flow;
  /** The flow in the previous snapshot (the last fresh one of its id). */
  before: Flow;
  now: FlowColumns;
  was: FlowColumns;
  /** The judged partitions' positions in `flow.partitions` and their slots, in that order. */
  positions: Int32Array;
  slots: Int32Array;
  /** The new syncs by slot (ctx.newSyncs), for the judged partitions that have some. */
  syncs: ReadonlyMap<number, readonly OffsetSyncPoint[]>;
  /**
   * Per slot: where the new syncs make a step (two or more), 1 with the StepKind bits of their steps; 0 elsewhere.
   * The test the event rules over syncs start with (hasNewSyncStep).
   */
  stepped: Uint8Array;
  /** The partitions made whole so far this cycle (readJudged), by index: several rules ask for the same ones. */
  made: Map<number, JudgedPartition>;
  /**
   * The columns hold each slot's own values in both cycles (no partition listed twice): a detector may skip a
   * partition on its numbers. Otherwise it reads every one whole (readJudged).
   */
  exact: boolean;
}

const noSyncs: readonly OffsetSyncPoint[] = [];

/**
 * The partitions fresh in `current` and in `previous`, per fresh flow in `current`'s order: each found in the previous
 * cycle by its stable slot (flow-columns.ts), without hashing its key or making an object for it.
 */
export function listJudgedFlows(current: Snapshot, previous: Snapshot | null, newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>): JudgedFlow[] {
  const judged: JudgedFlow[] = [];
  if (previous === null) return judged;
  const before = indexFreshFlowColumns(previous);
  if (before.size === 0) return judged;
  for (const flow of current.flows) {
    const old = before.get(flow.id);
    if (old === undefined || !isFlowFresh(current, flow)) continue;
    const now = readFlowColumns(flow);
    const was = old.columns;
    const positions = new Int32Array(now.slotAt.length);
    const slots = new Int32Array(now.slotAt.length);
    let n = 0;
    for (let i = 0; i < now.slotAt.length; i++) {
      const slot = now.slotAt[i]!;
      // Without duplicates a slot's known position is its own exactly when its data is known: no object is read.
      const known = now.duplicates ? flow.partitions[i]!.unknown === null : now.knownPositionOf[slot] === i;
      if (!known || (was.knownPositionOf[slot] ?? -1) < 0) continue;
      positions[n] = i;
      slots[n++] = slot;
    }
    const syncs = indexSyncsBySlot(now, newSyncs);
    const stepped = new Uint8Array(now.slots);
    syncs.forEach((list, slot) => {
      if (list.length > 1) stepped[slot] = classifyNewSteps(list);
    });
    judged.push({
      flow,
      before: old.flow,
      now,
      was,
      positions: positions.subarray(0, n),
      slots: slots.subarray(0, n),
      syncs,
      stepped,
      made: new Map(),
      exact: !now.duplicates && !was.duplicates,
    });
  }
  return judged;
}

/** The new syncs of a flow's partitions by slot: found by key in the map kept across cycles (findEncodedSlot). */
function indexSyncsBySlot(columns: FlowColumns, newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>): Map<number, readonly OffsetSyncPoint[]> {
  const bySlot = new Map<number, readonly OffsetSyncPoint[]>();
  for (const [key, syncs] of newSyncs) {
    const at = findEncodedSlot(key);
    if (at < 0 || generationOf(at) !== columns.generation) continue;
    const slot = slotOf(at);
    if (slot < columns.slots && columns.keys[slot] === key) bySlot.set(slot, syncs);
  }
  return bySlot;
}

/**
 * The `n`th judged partition of a flow with both cycles' views and its new syncs (objects: for a finding's work), made
 * once per cycle.
 */
export function readJudged(judged: JudgedFlow, n: number): JudgedPartition {
  let made = judged.made.get(n);
  if (made === undefined) judged.made.set(n, (made = makeJudged(judged, n)));
  return made;
}

function makeJudged(judged: JudgedFlow, n: number): JudgedPartition {
  const at = judged.positions[n]!;
  const slot = judged.slots[n]!;
  const view: FlowPartitionView = { key: judged.now.keys[slot]!, flow: judged.flow, partition: readFlowPartition(judged.flow, at), slot };
  const before = readFlowPartition(judged.before, judged.was.knownPositionOf[slot]!);
  return { view, before, syncs: judged.syncs.get(slot) ?? noSyncs };
}

/**
 * Visits the judged partitions whose numbers `may` lets through (every one of a flow whose columns are not exact),
 * in order, each made whole (readJudged).
 */
export function forEachJudged(
  judged: readonly JudgedFlow[],
  may: (judged: JudgedFlow, slot: number) => boolean,
  visit: (partition: JudgedPartition) => void,
): void {
  for (const flow of judged) {
    for (let n = 0; n < flow.slots.length; n++) if (!flow.exact || may(flow, flow.slots[n]!)) visit(readJudged(flow, n));
  }
}

/**
 * What a partition's new sync steps hold, as bits of JudgedFlow.stepped: a rule over syncs reads a partition whole
 * only where a step of the kind it judges is new (the steady path: syncs that advance as many offsets upstream as
 * downstream, MM2 copying on, have none).
 */
export const StepKind = {
  /** Upstream advanced more than downstream (lib/mm2 listUpstreamGaps: skipped offsets). */
  UPSTREAM_GAP: 2,
  /** Downstream went back or stood still while upstream did not go back (listDownstreamTruncations). */
  DOWNSTREAM_BACK: 4,
  /** Downstream advanced more than upstream, or as much as upstream went back (records copied twice). */
  RECOPY: 8,
} as const;

/** Whether the judged partition at `slot` has a new sync step of `kind` (a StepKind bit). */
export function hasNewSyncStep(judged: JudgedFlow, slot: number, kind: number): boolean {
  return (judged.stepped[slot]! & kind) !== 0;
}

/**
 * 1 and the StepKind bits of the steps between consecutive syncs (offsets as bigints, as lib/mm2's classifySyncSteps
 * compares them): made once per partition with new steps, for every rule.
 */
function classifyNewSteps(syncs: readonly OffsetSyncPoint[]): number {
  let kinds = 1;
  for (let i = 1; i < syncs.length; i++) {
    const from = syncs[i - 1]!;
    const to = syncs[i]!;
    const repeat = to.upstream === from.upstream && to.downstream === from.downstream;
    const up = to.upstream - from.upstream;
    const down = to.downstream - from.downstream;
    // classifyStep: not a repeat, upstream not back, downstream not forward.
    if (!repeat && up >= 0n && down <= 0n) kinds |= StepKind.DOWNSTREAM_BACK;
    // An advance (both forward) that skipped upstream offsets.
    if (up > 0n && down > 0n && up > down) kinds |= StepKind.UPSTREAM_GAP;
    // findRedeliveries: downstream not back, and more written than upstream advanced.
    if (down >= 0n && down > up) kinds |= StepKind.RECOPY;
  }
  return kinds;
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
  all: FlowPartitionView[] | null;
  fresh: FlowPartitionView[] | null;
  /** Fresh flows' columns by flow id, and by slot generation. */
  freshColumns: Map<string, FreshFlowColumns> | null;
  freshGenerations: Map<number, FlowColumns> | null;
  /** findTopic's last question and answer (changed in place: no object per question). */
  lastTopic: { alias: string | null; topic: string | null; found: TopicState | undefined };
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
  if (lastRuns?.snapshot !== current) lastRuns = null;
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
    index = { clusters, all: null, fresh: null, freshColumns: null, freshGenerations: null, lastTopic: { alias: null, topic: null, found: undefined } };
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

/**
 * Visits every partition whose data is fresh in `snapshot`, as listFreshFlowPartitions lists them, with its flow's
 * columns and its slot, making no object for it (`at`: its position in `flow.partitions`).
 */
export function forEachFreshPartition(
  snapshot: Snapshot,
  visit: (flow: Flow, columns: FlowColumns, at: number, slot: number) => void,
): void {
  for (const flow of snapshot.flows) {
    if (!isFlowFresh(snapshot, flow)) continue;
    const columns = readFlowColumns(flow);
    for (let i = 0; i < columns.slotAt.length; i++) {
      const slot = columns.slotAt[i]!;
      // Without duplicates a slot's known position is its own exactly when its data is known: no object is read.
      const known = columns.duplicates ? flow.partitions[i]!.unknown === null : columns.knownPositionOf[slot] === i;
      if (known) visit(flow, columns, i, slot);
    }
  }
}

/** A partition's view (FlowPartitionView) from its flow's columns: for a finding's work. */
export function readPartitionView(flow: Flow, columns: FlowColumns, at: number): FlowPartitionView {
  const slot = columns.slotAt[at]!;
  return { key: columns.keys[slot]!, flow, partition: readFlowPartition(flow, at), slot };
}

/** Every partition of every flow, fresh or not, in snapshot order. */
export function listFlowPartitions(snapshot: Snapshot): readonly FlowPartitionView[] {
  const index = indexOf(snapshot);
  if (index.all === null) {
    const views: FlowPartitionView[] = [];
    for (const flow of snapshot.flows) {
      const { slotAt, keys } = readFlowColumns(flow);
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
    for (const flow of snapshot.flows) if (isFlowFresh(snapshot, flow)) byId.set(flow.id, { flow, columns: readFlowColumns(flow) });
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
  if (last.topic === topic && last.alias === alias) return last.found;
  // The cluster rules' map of the cluster's topics by name (cluster-columns.ts): one map per cluster and cycle.
  const cluster = index.clusters.get(alias);
  const at = cluster === undefined ? undefined : readTopicPositions(cluster).byName.get(topic);
  const found = at === undefined ? undefined : cluster!.topics[at];
  last.alias = alias;
  last.topic = topic;
  last.found = found;
  return found;
}

/** A flow's source topics per topic run (FlowColumns.topicRunStarts), found on first question (findSourceTopic). */
interface SourceTopicRuns {
  snapshot: Snapshot;
  flow: Flow;
  columns: FlowColumns;
  /** Per run: 1 once its topic was looked up. */
  asked: Uint8Array;
  topics: (TopicState | undefined)[];
  /** Per run: isCompacted of its topic's configs once asked (0: not yet, 1: null, 2: false, 3: true). */
  compacted: Uint8Array;
}

/** The last flow asked about (a cycle's rules ask about one flow's partitions one after another). */
let lastRuns: SourceTopicRuns | null = null;
const runsByFlow = new WeakMap<Flow, SourceTopicRuns>();

/**
 * The run of a partition view of `snapshot`, with its flow's source topics per run; null where the view cannot be
 * placed in a run (not a known partition of its flow's columns, or a partition listed twice at another position).
 */
function placeInRun(snapshot: Snapshot, view: FlowPartitionView): [SourceTopicRuns, number] | null {
  let runs = lastRuns;
  if (runs === null || runs.flow !== view.flow || runs.snapshot !== snapshot) {
    runs = runsByFlow.get(view.flow) ?? null;
    if (runs === null || runs.snapshot !== snapshot) {
      const columns = readFlowColumns(view.flow);
      const count = columns.topicRunStarts.length;
      const topics = new Array<TopicState | undefined>(count);
      runs = { snapshot, flow: view.flow, columns, asked: new Uint8Array(count), topics, compacted: new Uint8Array(count) };
      runsByFlow.set(view.flow, runs);
    }
    lastRuns = runs;
  }
  const at = runs.columns.knownPositionOf[view.slot] ?? -1;
  // Without duplicates the known position is the view's own (and the flow's partitions need not be made to see it).
  if (at < 0 || (runs.columns.duplicates && view.flow.partitions[at] !== view.partition)) return null;
  // The last run starting at or before `at`.
  const starts = runs.columns.topicRunStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return [runs, low];
}

/**
 * findTopic of a partition view's source topic on its flow's source cluster (`view` a partition of `snapshot`), looked
 * up once per run of the topic's partitions a cycle: rules ask per partition with something to judge, and a lookup
 * in a map of every topic costs more than the question.
 */
export function findSourceTopic(snapshot: Snapshot, view: FlowPartitionView): TopicState | undefined {
  const placed = placeInRun(snapshot, view);
  if (placed === null) return findTopic(snapshot, view.flow.source, view.partition.topic);
  const [runs, run] = placed;
  if (runs.asked[run] !== 1) {
    runs.topics[run] = findTopic(snapshot, view.flow.source, view.partition.topic);
    runs.asked[run] = 1;
  }
  return runs.topics[run];
}

/** isCompacted of a partition view's source topic (findSourceTopic), once per run of its partitions a cycle. */
export function isSourceCompacted(snapshot: Snapshot, view: FlowPartitionView): boolean | null {
  const placed = placeInRun(snapshot, view);
  if (placed === null) return isCompacted(findTopic(snapshot, view.flow.source, view.partition.topic)?.configs);
  const [runs, run] = placed;
  let known = runs.compacted[run]!;
  if (known === 0) {
    const compacted = isCompacted(findSourceTopic(snapshot, view)?.configs);
    runs.compacted[run] = known = compacted === null ? 1 : compacted ? 3 : 2;
  }
  return known === 1 ? null : known === 3;
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

const deletesByConfigs = new WeakMap<TopicConfigs, boolean>();

/** Whether a topic's cleanup.policy contains `delete` (retention deletes records), once per configs object. */
export function isDeleting(configs: TopicConfigs): boolean {
  let deletes = deletesByConfigs.get(configs);
  if (deletes === undefined) {
    deletes = configs.cleanupPolicy.split(",").some((p) => p.trim() === "delete");
    deletesByConfigs.set(configs, deletes);
  }
  return deletes;
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
