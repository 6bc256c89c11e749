import type { ClusterSnapshot, FlowPartition, Snapshot } from "@/lib/collector/types";
import { detectAbortedRecordsCopied } from "./aborted-copied";
import { detectCommitsWithoutLeaderEpoch } from "./commit-without-leader-epoch";
import { detectDataLoss } from "./data-loss";
import { listEventFindings, mergeEvents, pruneEvents } from "./events";
import { detectFlowConfigWarnings, detectTopicsLeftFlow } from "./flow-membership";
import { detectNoCleanSuccessor } from "./no-clean-successor";
import { detectOffsetsOutOfRange } from "./offset-out-of-range";
import { detectPartitionHealth } from "./partition-health";
import { detectPositionMoves } from "./position-moved";
import { detectRedelivery } from "./redelivery";
import { detectReplicationLag } from "./replication-lag";
import { detectRetentionRisk } from "./retention-risk";
import { findCluster, indexFreshFlowPartitions, isClusterFresh, listFreshFlowPartitions, type DetectorContext } from "./snapshot-views";
import { advanceSyncMarkers, selectNewSyncs } from "./sync-steps";
import { detectTargetTruncation } from "./target-truncated";
import { detectTaskFailures } from "./task-failed";
import { detectTaskStalls } from "./task-stalled";
import { detectTopicReset } from "./topic-reset";
import { detectUncleanTruncation } from "./unclean-truncation";
import { type DetectorInput, type DetectorOutput, type Finding, FindingType } from "./types";

/**
 * Runs every detector over one cycle. Pure: the caller passes the clock (`now`) and the memory
 * returned by the previous call, and persists the memory it gets back.
 *
 * - Event findings (DATA_LOSS, TOPIC_RESET, MM2_REDELIVERY, MM2_POSITION_MOVED, TARGET_TRUNCATED,
 *   UNCLEAN_TRUNCATION, TOPIC_LEFT_FLOW) are merged into
 *   held events and re-emitted until `eventHoldMs` after they were last seen (events.ts).
 * - Level findings (all others) are emitted while their condition holds. When the data a finding
 *   was based on is stale or unknown this cycle (cluster unreachable or carried over, Connect
 *   unreachable, a read of its partition or group failed), last cycle's finding is emitted again:
 *   unknown is not healthy, and an alert must not resolve because its data could not be read.
 * - Held events about a partition that is unknown this cycle are kept past `eventHoldMs` until the
 *   partition is known again (a loss must not resolve while its partition cannot be read).
 * - Offset-sync steps are judged once, in the first cycle where they are new and the flow's data
 *   is fresh in this and the previous cycle (sync-steps.ts).
 */
export function runDetectors(input: DetectorInput): DetectorOutput {
  const { previous, current, history, memory, now, thresholds } = input;
  const before = indexFreshFlowPartitions(previous);
  const freshKeys = new Set(listFreshFlowPartitions(current).map((v) => v.key));
  const judgedKeys = new Set([...freshKeys].filter((key) => before.has(key)));
  const newSyncs = new Map([...judgedKeys].map((key) => [key, selectNewSyncs(history.offsetSyncs.get(key) ?? [], memory.syncMarkers[key])]));
  const ctx: DetectorContext = { previous, current, now, thresholds, newSyncs };

  const moves = detectPositionMoves(ctx, memory.committed);
  const candidates = [
    ...detectDataLoss(ctx),
    ...detectTopicReset(ctx),
    ...detectRedelivery(ctx),
    ...moves.candidates,
    ...detectTargetTruncation(ctx),
    ...detectUncleanTruncation(ctx),
    ...detectTopicsLeftFlow(ctx),
  ];
  const isUnknown = createUnknownFindingTest(current);
  const unknownEvents = memory.events.filter((e) => isUnknown(e.finding));
  const knownEvents = memory.events.filter((e) => !isUnknown(e.finding));
  const events = mergeEvents([...pruneEvents(knownEvents, now, thresholds.eventHoldMs), ...unknownEvents], candidates, now);
  const stalls = detectTaskStalls(ctx, memory.positions);
  const level = [
    ...detectTaskFailures(ctx),
    ...detectFlowConfigWarnings(ctx),
    ...stalls.findings,
    ...detectReplicationLag(ctx),
    ...detectRetentionRisk(ctx),
    ...detectPartitionHealth(ctx),
    ...detectNoCleanSuccessor(ctx),
    ...detectCommitsWithoutLeaderEpoch(ctx),
    ...detectOffsetsOutOfRange(ctx),
    ...detectAbortedRecordsCopied(ctx),
  ];
  const levelFindings = [...level, ...carryUnknownFindings(memory.lastFindings, level, isUnknown)];
  return {
    findings: [...listEventFindings(events), ...levelFindings],
    memory: {
      version: 1,
      events,
      syncMarkers: advanceSyncMarkers(memory.syncMarkers, history, judgedKeys, freshKeys),
      positions: stalls.marks,
      committed: moves.marks,
      lastFindings: levelFindings,
    },
  };
}

/** Last cycle's findings that were not produced now because their data is stale or unknown. */
function carryUnknownFindings(last: readonly Finding[], produced: readonly Finding[], isUnknown: (finding: Finding) => boolean): Finding[] {
  const keys = new Set(produced.map((f) => f.key));
  return last.filter((finding) => !keys.has(finding.key) && isUnknown(finding));
}

/**
 * Whether the data a finding is about is stale or unknown in `snapshot`:
 * - a Connect finding (evidence `connectCluster`): that Connect cluster did not answer;
 * - a flow finding: a cluster of the flow is stale, or a partition it is about is unknown (its
 *   topic and partition when set; a flow-wide finding is about every partition of the flow);
 * - a cluster finding: the cluster is stale; about a group: the group's offsets were not read, or
 *   the log offsets of a partition it commits on were not; NO_CLEAN_SUCCESSOR: the eligible leader
 *   replicas of a partition of its topic were not.
 */
function createUnknownFindingTest(snapshot: Snapshot): (finding: Finding) => boolean {
  const staleClusters = new Set(snapshot.clusters.filter((c): boolean => !isClusterFresh(c)).map((c) => c.alias));
  const staleConnect = new Set(snapshot.connect.filter((c) => !c.reachable).map((c) => c.name));
  return (finding) => {
    const connect = finding.evidence.connectCluster;
    if (typeof connect === "string") return staleConnect.has(connect);
    if (finding.flow !== undefined) {
      if (resolveFlowClusters(snapshot, finding.flow).some((alias) => staleClusters.has(alias))) return true;
      const partitions = snapshot.flows.find((f) => f.id === finding.flow)?.partitions ?? [];
      const isAbout = (p: FlowPartition) =>
        (finding.topic === undefined || p.topic === finding.topic) && (finding.partition === undefined || p.partition === finding.partition);
      return partitions.some((p) => p.unknown !== null && isAbout(p));
    }
    if (finding.cluster === undefined) return false;
    if (staleClusters.has(finding.cluster)) return true;
    const cluster = findCluster(snapshot, finding.cluster);
    if (finding.type === FindingType.NO_CLEAN_SUCCESSOR && isEligibleLeadersUnknown(cluster, finding.topic)) return true;
    return finding.group !== undefined && cluster !== undefined && isGroupUnknown(cluster, finding.group);
  };
}

/** A topic some of whose partitions' eligible leader replicas could not be read this cycle. */
function isEligibleLeadersUnknown(cluster: ClusterSnapshot | undefined, topic: string | undefined): boolean {
  return cluster?.topics.find((t) => t.name === topic)?.partitions.some((p) => p.eligibleLeaderReplicas === null) ?? false;
}

function isGroupUnknown(cluster: ClusterSnapshot, groupId: string): boolean {
  const group = cluster.groups.find((g) => g.groupId === groupId);
  if (group === undefined) return false;
  if (group.error !== null) return true;
  const committedOn = new Set(group.offsets.map((o) => `${o.topic}/${o.partition}`));
  const unread = (topic: string, p: { partition: number; logStart: bigint | null; logEnd: bigint | null }) =>
    committedOn.has(`${topic}/${p.partition}`) && (p.logStart === null || p.logEnd === null);
  return cluster.topics.some((t) => t.partitions.some((p) => unread(t.name, p)));
}

/** Source and target aliases of a flow; from its id (`<source>-><target>`) when it is not in the snapshot. */
function resolveFlowClusters(snapshot: Snapshot, flowId: string): string[] {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  return flow === undefined ? flowId.split("->") : [flow.source, flow.target];
}
