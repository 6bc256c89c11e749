import type { SyncPoint } from "@/lib/mm2";
import type { FlowDefinition } from "./flow-discovery";
import { decideMembership, listExcludedTopics } from "./flow-membership";
import { createUnknownJudge, type FlowReadFailures, type PreviousFlow } from "./partition-unknown";
import {
  type CheckpointPoint,
  type ClusterSnapshot,
  type DedicatedModeStatus,
  type Flow,
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
  const targetPartitions = indexPartitions(target);
  const targetTopics = new Set(target?.topics.map((t) => t.name));
  const positionTopics = new Set([...(readings.positions?.keys() ?? [])].map((k) => k.slice(0, k.lastIndexOf("/"))));
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
    for (const p of topic.partitions) {
      const lastReplicated = readings.positions?.get(`${topic.name}/${p.partition}`);
      const t = targetPartitions.get(`${targetTopic}/${p.partition}`);
      const history = readings.syncHistory.get(flowPartitionKey(def.id, topic.name, p.partition));
      const committedPosition = lastReplicated === undefined ? null : lastReplicated + 1n;
      const latestSync = history?.at(-1) ?? null;
      const derived = derivePosition(latestSync, t?.logEnd ?? null, p.logEnd);
      const densityIssue = readings.targetDensityIssues?.get(`${topic.name}/${p.partition}`) ?? null;
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
  partitions.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
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
    offsetSyncs: def.offsetSyncs,
    checkpointsTopic: def.checkpointsTopic,
    partitions,
    checkpoints: [...readings.checkpoints],
    heartbeat: {
      latestTimestamp: readings.latestHeartbeat,
      latencyMs: readings.latestHeartbeat === null ? null : Math.max(0, now - readings.latestHeartbeat),
    },
    totals: summarizeFlowTotals(partitions),
    errors: readings.errors,
    ...(readings.dedicatedStatus ? { dedicatedStatus: readings.dedicatedStatus } : {}),
  };
}

/** A flow's totals over its partitions (recomputed when the tail read refines the lag). */
export function summarizeFlowTotals(partitions: readonly FlowPartition[]): Flow["totals"] {
  return {
    topics: new Set(partitions.map((p) => p.topic)).size,
    partitions: partitions.length,
    lag: partitions.reduce((sum, p) => sum + (p.lag ?? 0n), 0n),
    unknownPositions: partitions.filter((p) => p.lag === null).length,
  };
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

function indexPartitions(cluster: ClusterSnapshot | undefined): Map<string, PartitionState> {
  const map = new Map<string, PartitionState>();
  for (const t of cluster?.topics ?? []) for (const p of t.partitions) map.set(`${t.name}/${p.partition}`, p);
  return map;
}
