import type { SyncPoint } from "@/lib/mm2";
import { countTopicPartitions, PartitionStateReader, type StateReading } from "./cluster-partition-rows";
import type { FlowDefinition } from "./flow-discovery";
import { describeFlags, FlowColumnsFiller, keepFlowColumns, keepPartitionsColumns } from "./flow-columns";
import { definePartitionsOnDemand, FlowRows } from "./flow-rows";
import { decideMembership, listExcludedTopics, type MembershipContext } from "./flow-membership";
import { createFlowPartitionKeyer, createPartitionNamer } from "./partition-keys";
import { PartitionNumbers } from "./partition-position";
import { readSyncHistories, type SyncHistories, type SyncHistory, type SyncHistorySource } from "./sync-history";
import { SyncHistoryStore } from "./sync-history-store";
import { createUnknownJudge, type FlowReadFailures, type PreviousFlow, type UnknownJudge } from "./partition-unknown";
import {
  type CheckpointPoint,
  type ClusterSnapshot,
  type CopierChange,
  type DedicatedModeStatus,
  type Flow,
  type FlowCoverageReading,
  type FlowPartition,
  type TopicState,
} from "./types";

/** What the collector read this cycle for one flow, besides the two clusters' snapshots. */
export interface FlowReadings {
  /** Upstream offset of the last replicated record per `topic/partition` (Connect's stored offset). */
  positions: ReadonlyMap<string, bigint> | null;
  /** Split flows: the connector copying each `topic/partition` that Connect holds offsets for (creditCopiers). */
  copiers?: ReadonlyMap<string, { connector: string; change: CopierChange | null }>;
  /** The offset syncs read so far, per `flowPartitionKey` (the collector's store, holding every flow's). */
  syncHistory: SyncHistorySource;
  checkpoints: readonly CheckpointPoint[];
  latestHeartbeat: number | null;
  /** Why MM2's positions or the offset syncs could not be read this cycle (partition-unknown.ts). */
  failures: FlowReadFailures;
  /**
   * Target partitions known not to be dense, by source `topic/partition`, with the reason
   * (target-density.ts): their position is never derived from the target's log end.
   */
  targetDensityIssues?: ReadonlyMap<string, string>;
  /** Dedicated mode: connector and task states from MM2's status topic. */
  dedicatedStatus?: DedicatedModeStatus;
  errors: string[];
}

/** A source topic MM2's filter takes, with where its partitions were built in listing order. */
interface MemberTopic {
  topic: TopicState;
  targetTopic: string;
  connector: string | null;
  /** Its index in the build's FlowRows.topics. */
  index: number;
  /** Its partitions are listed[from, to) of the flow's partitions in the source's order. */
  from: number;
  to: number;
  /** The source listed its partitions in partition order. */
  ordered: boolean;
}

/** What every partition of one flow's build reads besides its own topic. */
interface PartitionContext {
  flowId: string;
  readings: FlowReadings;
  syncHistory: SyncHistories;
  densityIssues: ReadonlyMap<string, string> | null;
  targetByName: ReadonlyMap<string, TopicState>;
  judgeUnknown: UnknownJudge;
  columns: FlowColumnsFiller;
  rows: FlowRows;
  /** Readers of a member topic's source states and of its remote topic's target states. */
  sourceStates: PartitionStateReader;
  targetStates: PartitionStateReader;
  /** The sync history of each slot found so far (only the collector's store: its histories are stable), or null. */
  historyBySlot: (SyncHistory | undefined)[] | null;
  tally: PartitionTally;
}

/** What the totals and the coverage need of every partition, counted as they are built (in any order). */
interface PartitionTally {
  /** The lags summed as numbers, and whether every partial sum stayed exact (below 2^53). */
  lag: number;
  exact: boolean;
  /** Partitions whose lag is unknown. */
  unknownPositions: number;
  /** Partitions without a target reading (listPartitionsMissing looks only when there are some). */
  targetUnread: number;
}

/** Each flow's sync histories by slot, for one store and slot generation (historiesOf). */
const historiesByFlow = new Map<string, { source: SyncHistories; generation: number; bySlot: (SyncHistory | undefined)[] }>();

/**
 * The flow's sync histories by slot when they come from the collector's SyncHistoryStore, whose history of a key
 * is one object for the store's life: a partition's is then found by its slot, not by hashing its key each cycle.
 */
function historiesOf(flowId: string, source: SyncHistories, generation: number): (SyncHistory | undefined)[] | null {
  if (!(source instanceof SyncHistoryStore)) return null;
  const known = historiesByFlow.get(flowId);
  if (known !== undefined && known.source === source && known.generation === generation) return known.bySlot;
  const bySlot: (SyncHistory | undefined)[] = [];
  historiesByFlow.set(flowId, { source, generation, bySlot });
  return bySlot;
}

/**
 * Each flow's remote topic names of the last build, by source topic. A name formatted again is a new string
 * whose hash every map it meets computes anew (the target's topics, coverage); the kept one, equal to it,
 * has its hash cached. Only the last build's topics are kept.
 */
const remoteNamesByFlow = new Map<string, ReadonlyMap<string, string>>();

/**
 * Assembles one flow's partitions from the source and target snapshots and MM2's readings.
 * A source topic belongs to the flow when MM2's topic filter takes it now (flow-membership.ts).
 */
export function buildFlow(def: FlowDefinition, source: ClusterSnapshot | undefined, target: ClusterSnapshot | undefined, readings: FlowReadings, now: number, previous: PreviousFlow | null = null): Flow {
  const targetByName = new Map<string, TopicState>();
  for (const t of target?.topics ?? []) if (!targetByName.has(t.name)) targetByName.set(t.name, t);
  // Only a filter Gapwatch cannot evaluate falls back on the positions Connect holds (decideMembership).
  const needsPositionTopics = def.topicFilters.length === 0 || def.topicFilters.some((f) => f.spec.kind === "unknown");
  const positionTopics = new Set(needsPositionTopics ? [...(readings.positions?.keys() ?? [])].map((k) => k.slice(0, k.lastIndexOf("/"))) : []);
  const densityIssues = readings.targetDensityIssues !== undefined && readings.targetDensityIssues.size > 0 ? readings.targetDensityIssues : null;
  // The target's topic names are the map's keys (membership asks only whether one is there): no set of them made.
  const membership = { targetTopics: targetByName, positionTopics };
  const { listing, members, excluded } = listMemberTopics(def, source, membership);
  const judgeUnknown = createUnknownJudge(source, target, readings.failures, previous);
  // The detectors' columns, filled once per cycle against the flow's stable slots as the partitions are built.
  let count = 0;
  for (const member of listing) count += countTopicPartitions(member.topic);
  const columns = new FlowColumnsFiller(def.id, count);
  const syncHistory = readSyncHistories(readings.syncHistory);
  const historyBySlot = historiesOf(def.id, syncHistory, columns.generation);
  const tally = { lag: 0, exact: true, unknownPositions: 0, targetUnread: 0 };
  const rows = new FlowRows(count);
  const states = { sourceStates: new PartitionStateReader(), targetStates: new PartitionStateReader() };
  const ctx = {
    flowId: def.id, readings, syncHistory, densityIssues, targetByName, judgeUnknown, columns, rows, ...states,
    historyBySlot, tally,
  };
  // Read in the order the source lists its topics, the order their states were read in and sit in memory
  // (read in sorted order, the reads jumped around the heap: about 20 % slower at 100,000 partitions), then sorted.
  let listed = 0;
  for (const member of listing) {
    member.index = rows.topics.length;
    rows.topics.push({ topic: member.topic.name, targetTopic: member.targetTopic, sourceTopicId: member.topic.topicId });
    member.from = listed;
    member.ordered = appendTopicPartitions(member, ctx, listed);
    listed = member.to = listed + countTopicPartitions(member.topic);
  }
  rows.order = sortByTopicAndPartition(def.id, members, rows);
  const { columns: filled, partitions: made } = columns.finish(rows);
  const matched = listMatchedTopics(rows, filled.topicRunStarts);
  const flow: Flow = {
    id: def.id,
    source: def.source,
    target: def.target,
    discoveredFrom: def.discoveredFrom,
    connectors: { connectCluster: def.connectCluster, ...def.connectors },
    replicationPolicy: { kind: def.policy.kind, separator: def.policy.separator },
    topicsFilter: def.topicsFilter,
    groupsFilter: def.groupsFilter,
    groupsExclude: def.groupsExclude,
    checkpointTiming: def.checkpointTiming,
    warnings: def.warnings,
    excludedTopics: listExcludedTopics(def, excluded, membership, readings.positions),
    coverage: readCoverage(def, { source, target, targetByName, excluded }, { rows, matched, tally: ctx.tally }, now, previous),
    ...(def.syncGroupOffsets !== undefined ? { syncGroupOffsets: def.syncGroupOffsets } : {}),
    ...(def.sourceTaskSettings !== undefined ? { sourceTaskSettings: def.sourceTaskSettings } : {}),
    ...(def.topicRefreshMs !== undefined ? { topicRefreshMs: def.topicRefreshMs } : {}),
    ...(def.sourceSettingsByConnector !== undefined && def.connectors.sources.length > 1 ? { sourceSettingsByConnector: def.sourceSettingsByConnector } : {}),
    ...(def.connectorMissing !== undefined ? { connectorMissing: def.connectorMissing } : {}),
    offsetSyncs: def.offsetSyncs,
    checkpointsTopic: def.checkpointsTopic,
    partitions: made ?? [],
    checkpoints: [...readings.checkpoints],
    heartbeat: {
      latestTimestamp: readings.latestHeartbeat,
      latencyMs: readings.latestHeartbeat === null ? null : Math.max(0, now - readings.latestHeartbeat),
    },
    totals: sumTotals(ctx.tally, rows, matched.size),
    errors: readings.errors,
    ...(readings.dedicatedStatus ? { dedicatedStatus: readings.dedicatedStatus } : {}),
  };
  keepFlowColumns(flow, filled);
  // Made by whoever reads them first (a recording, the read model, a rule's evidence); the hot readers read the
  // columns and the rows instead.
  if (made === null) definePartitionsOnDemand(flow, rows, (partitions) => keepPartitionsColumns(partitions, filled));
  return flow;
}

/**
 * The source topics MM2's filter takes that have partitions, in listing order and by name (a name listed twice
 * is one topic, its partitions in listing order), and the topics it leaves out.
 */
function listMemberTopics(def: FlowDefinition, source: ClusterSnapshot | undefined, membership: MembershipContext) {
  const listing: MemberTopic[] = [];
  const members = new Map<string, MemberTopic[]>();
  const excluded: { topic: TopicState; reason: string | null }[] = [];
  const lastRemoteNames = remoteNamesByFlow.get(def.id);
  const remoteNames = new Map<string, string>();
  for (const topic of source?.topics ?? []) {
    const verdict = decideMembership(def, topic, membership);
    if (!verdict.member) {
      excluded.push({ topic, reason: verdict.reason });
      continue;
    }
    if (countTopicPartitions(topic) === 0) continue;
    const formatted = def.policy.formatRemoteTopic(def.source, topic.name);
    const known = lastRemoteNames?.get(topic.name);
    const targetTopic = known === formatted ? known : formatted;
    remoteNames.set(topic.name, targetTopic);
    const member = { topic, targetTopic, connector: verdict.connector, index: 0, from: 0, to: 0, ordered: true };
    listing.push(member);
    const same = members.get(topic.name);
    if (same === undefined) members.set(topic.name, [member]);
    else same.push(member);
  }
  remoteNamesByFlow.set(def.id, remoteNames);
  return { listing, members, excluded };
}

/**
 * The listed positions sorted by topic as String.prototype.localeCompare orders them, then partition number (a
 * stable sort, as Array.prototype.sort): the topic names are sorted (not compared per pair of 100,000 partitions,
 * and not at all when the topics did not change, sortTopicNames), each topic's run of listed positions copied in
 * that order, and a topic sorted by partition only when the source did not list it in order. `order[i]`: the
 * listed position of the i-th partition in sorted order.
 */
function sortByTopicAndPartition(flowId: string, members: ReadonlyMap<string, readonly MemberTopic[]>, rows: FlowRows): Int32Array {
  const { names, strict } = sortTopicNames(flowId, members);
  const order = new Int32Array(rows.length);
  let n = 0;
  for (let i = 0; i < names.length; ) {
    // Names the collation cannot tell apart sort as one topic (their partitions interleave by number);
    // none when each name was checked to sort strictly before the next.
    let end = i + 1;
    while (!strict && end < names.length && names[i]!.localeCompare(names[end]!) === 0) end++;
    const from = n;
    let runs = 0;
    let ordered = true;
    for (let k = i; k < end; k++) {
      for (const member of members.get(names[k]!)!) {
        for (let j = member.from; j < member.to; j++) order[n++] = j;
        runs++;
        ordered &&= member.ordered;
      }
    }
    if (runs > 1 || !ordered) sortByPartition(order, from, n, rows.partition);
    i = end;
  }
  return n === order.length ? order : order.slice(0, n);
}

/** Sorts `order[from, to)` (listed positions) by partition number, stably; most topics are listed in order. */
function sortByPartition(order: Int32Array, from: number, to: number, partition: Float64Array): void {
  let ordered = true;
  for (let k = from + 1; ordered && k < to; k++) ordered = partition[order[k - 1]!]! <= partition[order[k]!]!;
  if (ordered) return;
  const group = Array.from(order.subarray(from, to)).sort((a, b) => partition[a]! - partition[b]!);
  order.set(group, from);
}

/**
 * The last topic names each flow listed, in localeCompare order with each strictly before the next. No other
 * order of the same names is sorted, so a cycle with exactly these topics (the common case) compares none:
 * 18,200 topics at 100,000 partitions cost 31 ms a cycle to sort, and 18,200 localeCompare calls to check.
 */
const sortedTopicsByFlow = new Map<string, readonly string[]>();

/** The topic names in localeCompare order, and `strict` when no two tie (the caller then compares none again). */
function sortTopicNames(flowId: string, topics: ReadonlyMap<string, unknown>): { names: readonly string[]; strict: boolean } {
  const last = sortedTopicsByFlow.get(flowId);
  if (last !== undefined && last.length === topics.size && last.every((name) => topics.has(name))) return { names: last, strict: true };
  const names = [...topics.keys()].sort((a, b) => a.localeCompare(b));
  let strict = true;
  for (let i = 1; strict && i < names.length; i++) strict = names[i - 1]!.localeCompare(names[i]!) < 0;
  if (strict) sortedTopicsByFlow.set(flowId, names);
  else sortedTopicsByFlow.delete(flowId);
  return { names, strict };
}

/**
 * Reads one member topic's partitions into the rows from listed position `from` on, in the order the source lists
 * them; true when in partition order.
 */
function appendTopicPartitions({ topic, targetTopic, connector, index }: MemberTopic, ctx: PartitionContext, from: number): boolean {
  const { readings, densityIssues, judgeUnknown, columns, rows, historyBySlot, tally } = ctx;
  // The cluster poll's rows are read without making the states (cluster-partition-rows.ts).
  const { sourceStates, targetStates } = ctx;
  const count = sourceStates.open(topic);
  targetStates.open(ctx.targetByName.get(targetTopic));
  // Interned: the same strings every cycle, found in the readings' maps without hashing them again.
  const nameOf = createPartitionNamer(topic.name);
  const keyOf = createFlowPartitionKeyer(ctx.flowId, topic.name);
  const slots = columns.findTopicSlots(topic.name);
  let ordered = true;
  for (let i = 0; i < count; i++) {
    // The offsets as numbers, as the rows hold them (cluster-partition-rows.ts): read as bigints only for a partition
    // with an offset beyond ±2^51 (putOffsets).
    const p = sourceStates.readNumbers(i);
    if (i > 0 && sourceStates.partitionAt(i - 1) > p.partition) ordered = false;
    const name = nameOf(p.partition);
    const copier = readings.copiers?.get(name);
    const lastReplicated = readings.positions?.get(name);
    const targetAt = targetStates.locate(i, p.partition);
    const t = targetAt < 0 ? undefined : targetStates.readNumbers(targetAt);
    const slot = columns.findSlot(slots, p.partition);
    let history = slot < 0 || historyBySlot === null ? undefined : historyBySlot[slot];
    if (history === undefined) {
      history = ctx.syncHistory.get(keyOf(p.partition));
      if (slot >= 0 && historyBySlot !== null) historyBySlot[slot] = history;
    }
    const latestSync = history === undefined || history.length === 0 ? null : history.point(history.length - 1);
    const densityIssue = densityIssues?.get(name) ?? null;
    const at = from + i;
    const n = numbers.readNumbers(p.logStart, p.logEnd, t?.logStart ?? Number.NaN, t?.logEnd ?? Number.NaN, lastReplicated, latestSync);
    const positionSource = n.small
      ? putSmallOffsets(rows, at, n, densityIssue)
      : putOffsets(rows, at, sourceStates.read(i), targetAt < 0 ? undefined : targetStates.read(targetAt), lastReplicated, latestSync, densityIssue);
    const sourceConnector = copier?.connector ?? connector;
    const copierChange = copier?.change ?? undefined;
    const fromSync = positionSource === "offset-sync";
    rows.put(at, index, {
      partition: p.partition,
      sourceConnector,
      sourceLeaderEpoch: p.leaderEpoch,
      positionSource,
      latestSync,
      copierChange,
      targetDensityIssue: densityIssue,
      unknown: judgeUnknown(p, t, fromSync ? "offset-sync" : "committed", sourceConnector),
      flags: describeFlags({ copierChange, targetDensityIssue: densityIssue }),
    });
    // The lag as the rows hold it: Number(lag), exact (an offset beyond 2^53 makes buildFlow throw).
    const offsetLag = rows.offsets.lag[at]!;
    if (Number.isNaN(offsetLag)) tally.unknownPositions++;
    else if (offsetLag !== 0) {
      tally.lag += offsetLag;
      tally.exact &&= tally.lag <= Number.MAX_SAFE_INTEGER;
    }
    if (t === undefined || Number.isNaN(t.logEnd)) tally.targetUnread++;
    columns.put(at, slot);
  }
  return ordered;
}

/** Read into by every partition of every build in turn (one object: nothing is allocated per partition). */
const numbers = new PartitionNumbers();

/**
 * A partition's offsets into the rows, MM2's position and the lag computed as numbers (every offset within ±2^51,
 * partition-position.ts: the answers derivePosition and computeLag give); where MM2's position came from.
 */
function putSmallOffsets(rows: FlowRows, at: number, n: PartitionNumbers, densityIssue: string | null): FlowPartition["positionSource"] {
  const committed = n.committedPosition();
  const derived = n.derivedPosition();
  const useDerived = densityIssue === null && !Number.isNaN(derived) && (Number.isNaN(committed) || derived > committed);
  const position = useDerived ? derived : committed;
  rows.putExactOffset(at, "sourceLogStart", n.sourceLogStart);
  rows.putExactOffset(at, "sourceLogEnd", n.sourceLogEnd);
  rows.putExactOffset(at, "mm2Position", position);
  rows.putExactOffset(at, "committedPosition", committed);
  rows.putExactOffset(at, "targetLogStart", n.targetLogStart);
  rows.putExactOffset(at, "targetLogEnd", n.targetLogEnd);
  rows.putExactOffset(at, "lag", n.lag(position));
  return Number.isNaN(position) ? null : useDerived ? "offset-sync" : "committed";
}

/** putSmallOffsets with bigints: a partition with an offset beyond ±2^51 (the rows name one beyond 2^53). */
function putOffsets(
  rows: FlowRows,
  at: number,
  p: StateReading,
  t: StateReading | undefined,
  lastReplicated: bigint | undefined,
  latestSync: SyncPoint | null,
  densityIssue: string | null,
): FlowPartition["positionSource"] {
  const committedPosition = lastReplicated === undefined ? null : lastReplicated + 1n;
  const derived = derivePosition(latestSync, t?.logEnd ?? null, p.logEnd);
  const useDerived = densityIssue === null && derived !== null && (committedPosition === null || derived > committedPosition);
  const mm2Position = useDerived ? derived : committedPosition;
  rows.putOffset(at, "sourceLogStart", p.logStart);
  rows.putOffset(at, "sourceLogEnd", p.logEnd);
  rows.putOffset(at, "mm2Position", mm2Position);
  rows.putOffset(at, "committedPosition", committedPosition);
  rows.putOffset(at, "targetLogStart", t?.logStart ?? null);
  rows.putOffset(at, "targetLogEnd", t?.logEnd ?? null);
  rows.putOffset(at, "lag", computeLag(p, mm2Position));
  return mm2Position === null ? null : useDerived ? "offset-sync" : "committed";
}

/**
 * Topic coverage: the filter's verdict on every source topic, and matched topics missing on the target since
 * the first cycle that saw them missing (kept from the previous flow; carried whole while the target is unread).
 */
function readCoverage(
  def: FlowDefinition,
  { source, target, targetByName, excluded }: CoverageReads,
  { rows, matched, tally }: { rows: FlowRows; matched: ReadonlyMap<string, string>; tally: PartitionTally },
  now: number,
  previous: PreviousFlow | null,
): FlowCoverageReading {
  const before = previous?.flow.coverage?.missingOnTarget ?? [];
  const targetKnown = target !== undefined && target.reachable && !target.stale;
  // One pass over the topics, no pair array per topic (181,820 topics at 1,000,000 partitions).
  const missing: FlowCoverageReading["missingOnTarget"] = [];
  let matchedByFilter = 0;
  for (const [topic, targetTopic] of matched) {
    if (!targetByName.has(targetTopic)) missing.push({ topic, targetTopic, since: before.find((m) => m.topic === topic)?.since ?? now });
    if (!def.policy.isHeartbeatsTopic(topic)) matchedByFilter++;
  }
  const partitionsMissing = tally.targetUnread === 0 ? [] : listPartitionsMissing(rows, targetByName, previous?.flow.coverage?.partitionsMissingOnTarget ?? [], now);
  return {
    filterKnown: def.configReadError === null && def.topicFilters.length > 0 && def.topicFilters.every((f) => f.spec.kind === "default") && source !== undefined,
    matchedByFilter,
    unmatched: excluded.map(({ topic, reason }) => ({ topic: topic.name, reason, internal: topic.internal || def.policy.isInternalTopic(topic.name) })),
    missingOnTarget: targetKnown ? missing : before,
    partitionsMissingOnTarget: targetKnown ? partitionsMissing : (previous?.flow.coverage?.partitionsMissingOnTarget ?? []),
    targetKnown,
  };
}

/**
 * Source partitions whose remote topic exists without that partition (the source's partition count was increased;
 * MM2 adds the partitions at its next topic refresh, MirrorSourceConnector.refreshTopicPartitions), per topic, with
 * the time the topic was first seen missing partitions. Only a partition without a target reading is looked up.
 */
function listPartitionsMissing(
  rows: FlowRows,
  targetByName: ReadonlyMap<string, TopicState>,
  before: readonly { topic: string; since: number }[],
  now: number,
): { topic: string; targetTopic: string; partitions: number[]; since: number }[] {
  const byTopic = new Map<string, { topic: string; targetTopic: string; partitions: number[]; since: number }>();
  const targetLogEnd = rows.offsets.targetLogEnd;
  const targetStates = new PartitionStateReader();
  for (let i = 0; i < rows.order.length; i++) {
    if (!Number.isNaN(targetLogEnd[rows.order[i]!]!)) continue;
    const { topic, targetTopic } = rows.rowTopicOf(i);
    const partition = rows.partitionOf(i);
    const remote = targetByName.get(targetTopic);
    if (remote === undefined) continue;
    targetStates.open(remote);
    if (targetStates.locate(partition, partition) >= 0) continue;
    let entry = byTopic.get(topic);
    if (entry === undefined) {
      entry = { topic, targetTopic, partitions: [], since: before.find((m) => m.topic === topic)?.since ?? now };
      byTopic.set(topic, entry);
    }
    entry.partitions.push(partition);
  }
  return [...byTopic.values()];
}

/** What the coverage reads of the clusters. */
interface CoverageReads {
  source: ClusterSnapshot | undefined;
  target: ClusterSnapshot | undefined;
  targetByName: ReadonlyMap<string, TopicState>;
  excluded: readonly { topic: TopicState; reason: string | null }[];
}

/**
 * The flow's source topics with their remote topic, in sorted order. A topic's partitions are listed together (and
 * share one target topic): one map write per topic, read where each run of a topic starts. The coverage and the
 * totals' topic count share it (at 1,000,000 partitions, 181,820 topics: each map of them made cost ~0.3 s a cycle).
 */
function listMatchedTopics(rows: FlowRows, topicRunStarts: Int32Array): Map<string, string> {
  const matched = new Map<string, string>();
  let listed: string | undefined;
  for (const at of topicRunStarts) {
    const { topic, targetTopic } = rows.rowTopicOf(at);
    if (topic !== listed) matched.set((listed = topic), targetTopic);
  }
  return matched;
}

/**
 * The flow's totals from what was counted as its partitions were built, as summarizeFlowTotals sums them; `topics`:
 * how many source topics (listMatchedTopics).
 */
function sumTotals(tally: PartitionTally, rows: FlowRows, topics: number): Flow["totals"] {
  if (!tally.exact) return summarizeFlowTotals(rows.makePartitions());
  return { topics, partitions: rows.order.length, lag: BigInt(tally.lag), unknownPositions: tally.unknownPositions };
}

/** A flow's totals over its partitions (recomputed when the tail read refines the lag), in one pass. */
export function summarizeFlowTotals(partitions: readonly FlowPartition[]): Flow["totals"] {
  const topics = new Set<string>();
  // Summed as numbers (a bigint sum makes a bigint per partition), exact while every partial sum is below 2^53.
  let lag = 0;
  let exact = true;
  let unknownPositions = 0;
  let topic: string | undefined;
  for (const p of partitions) {
    // A topic's partitions are listed together (buildFlow's order): one insertion per run of them.
    if (p.topic !== topic) topics.add((topic = p.topic));
    if (p.lag === null) unknownPositions++;
    else if (p.lag !== 0n) {
      lag += Number(p.lag);
      exact &&= lag <= Number.MAX_SAFE_INTEGER && lag >= -Number.MAX_SAFE_INTEGER;
    }
  }
  return { topics: topics.size, partitions: partitions.length, lag: exact ? BigInt(lag) : sumLag(partitions), unknownPositions };
}

/** The partitions' lag summed as bigints (beyond 2^53 as numbers). */
function sumLag(partitions: readonly FlowPartition[]): bigint {
  let lag = 0n;
  for (const p of partitions) if (p.lag !== null) lag += p.lag;
  return lag;
}

/**
 * The position the newest offset sync proves. MM2 writes a sync at once whenever upstream offsets
 * are not consecutive (OffsetSyncWriter, 3.5+), so after the newest sync (u, d) every replicated
 * record is the next upstream offset: the target's log end T holds T − d − 1 more of them, and
 * the position is u + (T − d). Connect's committed offset can trail this by one flush (seen in the
 * sandbox: the last record of a paused task stays uncommitted). Not used when it would pass the
 * source log end (stale syncs of a recreated topic, or other writers on the target).
 */
export function derivePosition(sync: SyncPoint | null, targetLogEnd: bigint | null, sourceLogEnd: bigint | null): bigint | null {
  if (!sync || targetLogEnd === null || sourceLogEnd === null || targetLogEnd <= sync.downstream) return null;
  const position = sync.upstream + (targetLogEnd - sync.downstream);
  return position <= sourceLogEnd ? position : null;
}

/**
 * Records not yet replicated that still exist: source log end − max(MM2's position, log start),
 * never negative (a log end below the position is a topic reset, which the detectors report). An empty partition MM2 never
 * touched has nothing to replicate; otherwise an unknown position gives an unknown lag.
 */
function computeLag(p: StateReading, mm2Position: bigint | null): bigint | null {
  if (p.logEnd === null) return null;
  if (mm2Position === null) return p.logStart !== null && p.logStart === p.logEnd ? 0n : null;
  // Records below the log start no longer exist: they are lost (DATA_LOSS), not waiting.
  const from = p.logStart !== null && p.logStart > mm2Position ? p.logStart : mm2Position;
  const lag = p.logEnd - from;
  return lag > 0n ? lag : 0n;
}

