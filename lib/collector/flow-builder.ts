import type { SyncPoint } from "@/lib/mm2";
import type { FlowDefinition } from "./flow-discovery";
import { decideMembership, listExcludedTopics } from "./flow-membership";
import { internPartitionName } from "./partition-keys";
import { createUnknownJudge, type FlowReadFailures, type PreviousFlow } from "./partition-unknown";
import {
  type CheckpointPoint,
  type ClusterSnapshot,
  type DedicatedModeStatus,
  type Flow,
  type FlowCoverageReading,
  type FlowPartition,
  flowPartitionKey,
  type PartitionState,
  type TopicState,
} from "./types";

/** What the collector read this cycle for one flow, besides the two clusters' snapshots. */
export interface FlowReadings {
  /** Upstream offset of the last replicated record per `topic/partition` (Connect's stored offset). */
  positions: ReadonlyMap<string, bigint> | null;
  syncHistory: ReadonlyMap<string, readonly SyncPoint[]>;
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

/**
 * Assembles one flow's partitions from the source and target snapshots and MM2's readings.
 * A source topic belongs to the flow when MM2's topic filter takes it now (flow-membership.ts).
 */
export function buildFlow(def: FlowDefinition, source: ClusterSnapshot | undefined, target: ClusterSnapshot | undefined, readings: FlowReadings, now: number, previous: PreviousFlow | null = null): Flow {
  const judgeUnknown = createUnknownJudge(source, target, readings.failures, previous);
  const targetByName = new Map<string, TopicState>();
  for (const t of target?.topics ?? []) if (!targetByName.has(t.name)) targetByName.set(t.name, t);
  const targetTopics = new Set(targetByName.keys());
  // Only a filter Gapwatch cannot evaluate falls back on the positions Connect holds (decideMembership).
  const needsPositionTopics = def.topicFilters.length === 0 || def.topicFilters.some((f) => f.spec.kind === "unknown");
  const positionTopics = new Set(needsPositionTopics ? [...(readings.positions?.keys() ?? [])].map((k) => k.slice(0, k.lastIndexOf("/"))) : []);
  const densityIssues = readings.targetDensityIssues !== undefined && readings.targetDensityIssues.size > 0 ? readings.targetDensityIssues : null;
  const partitions: FlowPartition[] = [];
  const membership = { targetTopics, positionTopics };
  const excluded: { topic: TopicState; reason: string | null }[] = [];
  for (const topic of source?.topics ?? []) {
    const targetTopic = def.policy.formatRemoteTopic(def.source, topic.name);
    const verdict = decideMembership(def, topic, membership);
    if (!verdict.member) {
      excluded.push({ topic, reason: verdict.reason });
      continue;
    }
    const remote = targetByName.get(targetTopic)?.partitions;
    for (let i = 0; i < topic.partitions.length; i++) {
      const p = topic.partitions[i]!;
      // Interned: the same strings every cycle, found in the readings' maps without hashing them again.
      const name = internPartitionName(topic.name, p.partition);
      const lastReplicated = readings.positions?.get(name);
      const t = findPartition(remote, i, p.partition);
      const history = readings.syncHistory.get(flowPartitionKey(def.id, topic.name, p.partition));
      const committedPosition = lastReplicated === undefined ? null : lastReplicated + 1n;
      const latestSync = history === undefined || history.length === 0 ? null : history[history.length - 1]!;
      const derived = derivePosition(latestSync, t?.logEnd ?? null, p.logEnd);
      const densityIssue = densityIssues?.get(name) ?? null;
      const useDerived = densityIssue === null && derived !== null && (committedPosition === null || derived > committedPosition);
      const mm2Position = useDerived ? derived : committedPosition;
      const offsetLag = computeLag(p, mm2Position);
      partitions.push({
        topic: topic.name,
        partition: p.partition,
        targetTopic,
        sourceConnector: verdict.connector,
        sourceTopicId: topic.topicId,
        sourceLogStart: p.logStart,
        sourceLogEnd: p.logEnd,
        sourceLeaderEpoch: p.leaderEpoch,
        mm2Position,
        committedPosition,
        positionSource: mm2Position === null ? null : useDerived ? "offset-sync" : "committed",
        targetLogStart: t?.logStart ?? null,
        targetLogEnd: t?.logEnd ?? null,
        lag: offsetLag,
        offsetLag,
        lagBasis: "offsets",
        transactionMarkersSeen: false,
        targetDensityIssue: densityIssue,
        latestSync,
        oldestUnreplicatedTimestamp: null,
        unknown: judgeUnknown(p, t, useDerived ? "offset-sync" : "committed"),
      });
    }
  }
  const sorted = sortByTopicAndPartition(partitions, previous?.flow.partitions);
  return {
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
    coverage: readCoverage(def, source, target, excluded, sorted, now, previous),
    ...(def.syncGroupOffsets !== undefined ? { syncGroupOffsets: def.syncGroupOffsets } : {}),
    offsetSyncs: def.offsetSyncs,
    checkpointsTopic: def.checkpointsTopic,
    partitions: sorted,
    checkpoints: [...readings.checkpoints],
    heartbeat: {
      latestTimestamp: readings.latestHeartbeat,
      latencyMs: readings.latestHeartbeat === null ? null : Math.max(0, now - readings.latestHeartbeat),
    },
    totals: summarizeFlowTotals(sorted),
    errors: readings.errors,
    ...(readings.dedicatedStatus ? { dedicatedStatus: readings.dedicatedStatus } : {}),
  };
}

/**
 * Topic coverage: the filter's verdict on every source topic, and matched topics missing on the target since
 * the first cycle that saw them missing (kept from the previous flow; carried whole while the target is unread).
 */
function readCoverage(
  def: FlowDefinition,
  source: ClusterSnapshot | undefined,
  target: ClusterSnapshot | undefined,
  excluded: readonly { topic: TopicState; reason: string | null }[],
  partitions: readonly FlowPartition[],
  now: number,
  previous: PreviousFlow | null,
): FlowCoverageReading {
  const before = previous?.flow.coverage?.missingOnTarget ?? [];
  const targetKnown = target !== undefined && target.reachable && !target.stale;
  const targetNames = new Set(target?.topics.map((t) => t.name) ?? []);
  const matched = new Map<string, string>();
  for (const p of partitions) matched.set(p.topic, p.targetTopic);
  const missing = [...matched]
    .filter(([, targetTopic]) => !targetNames.has(targetTopic))
    .map(([topic, targetTopic]) => ({ topic, targetTopic, since: before.find((m) => m.topic === topic)?.since ?? now }));
  return {
    filterKnown: def.configReadError === null && def.topicFilters.length > 0 && def.topicFilters.every((f) => f.spec.kind === "default") && source !== undefined,
    matchedByFilter: [...matched.keys()].filter((t) => !def.policy.isHeartbeatsTopic(t)).length,
    unmatched: excluded.map(({ topic, reason }) => ({ topic: topic.name, reason, internal: topic.internal || def.policy.isInternalTopic(topic.name) })),
    missingOnTarget: targetKnown ? missing : before,
    targetKnown,
  };
}

/** A flow's totals over its partitions (recomputed when the tail read refines the lag), in one pass. */
export function summarizeFlowTotals(partitions: readonly FlowPartition[]): Flow["totals"] {
  const topics = new Set<string>();
  let lag = 0n;
  let unknownPositions = 0;
  for (const p of partitions) {
    topics.add(p.topic);
    if (p.lag === null) unknownPositions++;
    else if (p.lag !== 0n) lag += p.lag;
  }
  return { topics: topics.size, partitions: partitions.length, lag, unknownPositions };
}

/**
 * The partitions sorted by topic as String.prototype.localeCompare orders them, then partition
 * number (a stable sort, as Array.prototype.sort): the topics are sorted once (a few thousand
 * names), not compared per pair of 100,000 partitions, and not at all when the previous cycle's
 * flow had the same topics (sortTopicNames).
 */
function sortByTopicAndPartition(partitions: readonly FlowPartition[], before: readonly FlowPartition[] | undefined): FlowPartition[] {
  const byTopic = new Map<string, FlowPartition[]>();
  for (const p of partitions) {
    const list = byTopic.get(p.topic);
    if (list === undefined) byTopic.set(p.topic, [p]);
    else list.push(p);
  }
  const { names, strict } = sortTopicNames(byTopic, before);
  const sorted: FlowPartition[] = [];
  for (let i = 0; i < names.length; ) {
    // Names the collation cannot tell apart sort as one topic (their partitions interleave by number);
    // none when each name was checked to sort strictly before the next.
    let end = i + 1;
    while (!strict && end < names.length && names[i]!.localeCompare(names[end]!) === 0) end++;
    const group = end === i + 1 ? byTopic.get(names[i]!)! : names.slice(i, end).flatMap((name) => byTopic.get(name)!);
    if (isInPartitionOrder(group)) for (const p of group) sorted.push(p);
    else for (const p of group.sort((a, b) => a.partition - b.partition)) sorted.push(p);
    i = end;
  }
  return sorted;
}

function isInPartitionOrder(group: readonly FlowPartition[]): boolean {
  for (let k = 1; k < group.length; k++) if (group[k - 1]!.partition > group[k]!.partition) return false;
  return true;
}

/**
 * The topic names in localeCompare order. The previous cycle's flow lists its topics in that order already:
 * when it holds exactly these names, each strictly before the next, that order is the only sorted one, checked
 * with one comparison per topic instead of a sort (18,200 topics at 100,000 partitions: 31 ms a cycle), and
 * `strict` (no two names tie, so the caller compares none again).
 */
function sortTopicNames(byTopic: ReadonlyMap<string, unknown>, before: readonly FlowPartition[] | undefined): { names: string[]; strict: boolean } {
  if (before !== undefined && before.length > 0) {
    const names: string[] = [];
    for (const p of before) if (names[names.length - 1] !== p.topic) names.push(p.topic);
    let same = names.length === byTopic.size;
    for (let i = 0; same && i < names.length; i++) same = byTopic.has(names[i]!) && (i === 0 || names[i - 1]!.localeCompare(names[i]!) < 0);
    if (same) return { names, strict: true };
  }
  return { names: [...byTopic.keys()].sort((a, b) => a.localeCompare(b)), strict: false };
}

/** The partition numbered `partition` of a topic, looked for first where it is listed in order. */
function findPartition(partitions: readonly PartitionState[] | undefined, at: number, partition: number): PartitionState | undefined {
  if (partitions === undefined) return undefined;
  const candidate = partitions[at];
  return candidate?.partition === partition ? candidate : partitions.find((x) => x.partition === partition);
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
function computeLag(p: PartitionState, mm2Position: bigint | null): bigint | null {
  if (p.logEnd === null) return null;
  if (mm2Position === null) return p.logStart !== null && p.logStart === p.logEnd ? 0n : null;
  // Records below the log start no longer exist: they are lost (DATA_LOSS), not waiting.
  const from = p.logStart !== null && p.logStart > mm2Position ? p.logStart : mm2Position;
  const lag = p.logEnd - from;
  return lag > 0n ? lag : 0n;
}

