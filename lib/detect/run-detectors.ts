import { flowPartitionKey, type ClusterSnapshot, type ConsumerGroupState, type Flow, type FlowPartition, type OffsetSyncPoint, type Snapshot } from "@/lib/collector/types";
import { createReplicationPolicy } from "@/lib/mm2";
import { detectAbortedRecordsCopied } from "./aborted-copied";
import { detectCommitsWithoutLeaderEpoch } from "./commit-without-leader-epoch";
import { detectConnectorsMissing } from "./connector-missing";
import { detectCopierChanges } from "./copier-changed";
import { detectDataLoss } from "./data-loss";
import { listEventFindings, mergeEvents, pruneEvents } from "./events";
import { detectFlowConfigWarnings, detectTopicsLeftFlow } from "./flow-membership";
import { detectNoCleanSuccessor } from "./no-clean-successor";
import { detectOffsetsOutOfRange } from "./offset-out-of-range";
import { detectPartitionHealth } from "./partition-health";
import { detectPositionMoves } from "./position-moved";
import { detectRedelivery } from "./redelivery";
import { detectSkippedByReset } from "./skipped-by-reset";
import { detectReplicationLag } from "./replication-lag";
import { detectRetentionRisk } from "./retention-risk";
import {
  findCluster,
  findTopic,
  createFreshKeyTest,
  isClusterFresh,
  keepOnlySnapshotIndex,
  listJudgedPartitions,
  type DetectorContext,
} from "./snapshot-views";
import { stepSyncs } from "./sync-steps";
import { detectTargetGroupRewinds } from "./target-group-rewound";
import { detectTargetTruncation } from "./target-truncated";
import { detectTaskFailures } from "./task-failed";
import { detectTasksNotRunning } from "./task-not-running";
import { detectTaskStalls } from "./task-stalled";
import { detectCoverageFindings } from "./topic-coverage";
import { detectTopicReset } from "./topic-reset";
import { indexTruncations } from "./truncation-index";
import { detectUncleanTruncation } from "./unclean-truncation";
import { type DetectorInput, type DetectorOutput, type Finding, FindingType, type HeldEvent } from "./types";

/**
 * Runs every detector over one cycle. Pure: the caller passes the clock (`now`) and the memory
 * returned by the previous call, and persists the memory it gets back.
 *
 * - Event findings (DATA_LOSS, TOPIC_RESET, MM2_REDELIVERY, MM2_SKIPPED_BY_RESET, MM2_POSITION_MOVED, TARGET_TRUNCATED,
 *   UNCLEAN_TRUNCATION, TOPIC_LEFT_FLOW, TOPIC_CHANGED_CONNECTOR, TARGET_GROUP_REWOUND) are merged into
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
  const before = createFreshKeyTest(previous);
  const fresh = createFreshKeyTest(current);
  const syncs = stepSyncs(memory.syncMarkers, history, (key) => fresh(key) && before(key), fresh, now);
  const newSyncs = dropSharedHeartbeatSyncs(current, syncs.newSyncs);
  const ctx: DetectorContext = {
    previous,
    current,
    now,
    thresholds,
    newSyncs,
    syncHistory: history.offsetSyncs,
    judged: listJudgedPartitions(current, previous, newSyncs),
    truncations: indexTruncations(current, memory.events),
  };

  const moves = detectPositionMoves(ctx, memory.committed);
  const candidates = [
    ...detectDataLoss(ctx),
    ...detectTopicReset(ctx, memory.committed),
    ...detectRedelivery(ctx),
    ...detectSkippedByReset(ctx),
    ...detectCopierChanges(ctx),
    ...moves.candidates,
    ...detectTargetTruncation(ctx),
    ...detectUncleanTruncation(ctx, memory.events),
    ...detectTopicsLeftFlow(ctx),
    ...detectTargetGroupRewinds(ctx),
  ];
  const isUnknown = createUnknownFindingTest(current);
  const unknownEvents: HeldEvent[] = [];
  const knownEvents: HeldEvent[] = [];
  for (const e of memory.events) (isUnknown(e.finding) ? unknownEvents : knownEvents).push(e);
  const events = mergeEvents([...pruneEvents(knownEvents, now, thresholds.eventHoldMs), ...unknownEvents], candidates, now);
  const stalls = detectTaskStalls(ctx, memory.positions);
  const level = [
    ...detectTaskFailures(ctx),
    ...detectTasksNotRunning(ctx),
    ...detectConnectorsMissing(ctx),
    ...detectFlowConfigWarnings(ctx),
    ...stalls.findings,
    ...detectReplicationLag(ctx),
    ...detectRetentionRisk(ctx),
    ...detectPartitionHealth(ctx),
    ...detectNoCleanSuccessor(ctx),
    ...detectCommitsWithoutLeaderEpoch(ctx),
    ...detectOffsetsOutOfRange(ctx),
    ...detectAbortedRecordsCopied(ctx),
    ...detectCoverageFindings(ctx),
  ];
  const levelFindings = [...level, ...carryUnknownFindings(memory.lastFindings, level, isUnknown)];
  // The last detector to read `previous` ran: its index need not outlive it.
  keepOnlySnapshotIndex(current);
  return {
    findings: [...listEventFindings(events), ...levelFindings],
    memory: {
      version: 1,
      events,
      syncMarkers: syncs.markers,
      positions: stalls.marks,
      committed: moves.marks,
      lastFindings: levelFindings,
    },
  };
}

type NewSyncs = ReadonlyMap<string, readonly OffsetSyncPoint[]>;

/**
 * The new offset syncs without those of heartbeats topics in flows split over several MirrorSourceConnectors: each
 * connector copies heartbeats whatever its topic filter (MirrorSourceConnector.shouldReplicateTopic takes heartbeats
 * topics) and writes their syncs into the one offset-syncs topic, so the steps interleave two writers — read as one
 * they look like a truncated target, re-copies and skipped offsets (tests/integration/production/split-flow.test.ts).
 * Heartbeats carry MM2's liveness, no data: their steps are not judged. Nor are those of topics two connectors' filters
 * both take (FLOW_CONFIG_WARNING topic-overlap says so and names what it hides).
 */
function dropSharedHeartbeatSyncs(snapshot: Snapshot, newSyncs: NewSyncs): NewSyncs {
  const split = snapshot.flows.filter((flow) => flow.connectors.sources.length > 1);
  if (split.length === 0 || newSyncs.size === 0) return newSyncs;
  const kept = new Map(newSyncs);
  for (const flow of split) {
    const policy = createReplicationPolicy(flow.replicationPolicy.kind, flow.replicationPolicy.separator, flow.source);
    const overlapped = new Set(flow.warnings.flatMap((w) => (w.kind === "topic-overlap" ? (w.topics ?? []) : [])));
    // Partitions come grouped by topic: the policy is asked once per topic.
    let topic: string | null = null;
    let heartbeats = false;
    for (const p of flow.partitions) {
      if (p.topic !== topic) [topic, heartbeats] = [p.topic, policy.isHeartbeatsTopic(p.topic) || overlapped.has(p.topic)];
      if (heartbeats) kept.delete(flowPartitionKey(flow.id, p.topic, p.partition));
    }
  }
  return kept;
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
 * What each answer needs is indexed once per cycle (most flows and clusters have nothing unknown).
 */
function createUnknownFindingTest(snapshot: Snapshot): (finding: Finding) => boolean {
  const staleClusters = new Set(snapshot.clusters.filter((c): boolean => !isClusterFresh(c)).map((c) => c.alias));
  const staleConnect = new Set(snapshot.connect.filter((c) => !c.reachable).map((c) => c.name));
  const flows = new Map<string, Flow>();
  for (const f of snapshot.flows) if (!flows.has(f.id)) flows.set(f.id, f);
  const unknownByFlow = new Map<string, UnknownPartitions>();
  const unreadByCluster = new Map<string, ReadonlySet<string>>();
  const groupsByCluster = new Map<string, Map<string, ConsumerGroupState>>();
  return (finding) => {
    const connect = finding.evidence.connectCluster;
    if (typeof connect === "string") return staleConnect.has(connect);
    if (finding.flow !== undefined) {
      const flow = flows.get(finding.flow);
      const aliases = flow === undefined ? finding.flow.split("->") : [flow.source, flow.target];
      if (aliases.some((alias) => staleClusters.has(alias))) return true;
      if (flow === undefined) return false;
      let unknown = unknownByFlow.get(flow.id);
      if (unknown === undefined) unknownByFlow.set(flow.id, (unknown = indexUnknownPartitions(flow.partitions)));
      return isAboutUnknown(unknown, finding.topic, finding.partition);
    }
    if (finding.cluster === undefined) return false;
    if (staleClusters.has(finding.cluster)) return true;
    const cluster = findCluster(snapshot, finding.cluster);
    if (cluster === undefined) return false;
    if (finding.type === FindingType.NO_CLEAN_SUCCESSOR && isEligibleLeadersUnknown(snapshot, cluster, finding.topic)) return true;
    if (finding.group === undefined) return false;
    let groups = groupsByCluster.get(cluster.alias);
    if (groups === undefined) {
      groups = new Map();
      for (const g of cluster.groups) if (!groups.has(g.groupId)) groups.set(g.groupId, g);
      groupsByCluster.set(cluster.alias, groups);
    }
    const group = groups.get(finding.group);
    if (group === undefined) return false;
    if (group.error !== null) return true;
    let unread = unreadByCluster.get(cluster.alias);
    if (unread === undefined) unreadByCluster.set(cluster.alias, (unread = listUnreadPartitions(cluster)));
    return unread.size > 0 && group.offsets.some((o) => unread.has(`${o.topic}/${o.partition}`));
  };
}

/** A flow's unknown partitions, indexed for every way a finding can name them. */
interface UnknownPartitions {
  count: number;
  topics: ReadonlySet<string>;
  partitions: ReadonlySet<number>;
  topicPartitions: ReadonlySet<string>;
}

function indexUnknownPartitions(partitions: readonly FlowPartition[]): UnknownPartitions {
  const topics = new Set<string>();
  const numbers = new Set<number>();
  const topicPartitions = new Set<string>();
  let count = 0;
  for (const p of partitions) {
    if (p.unknown === null) continue;
    count++;
    topics.add(p.topic);
    numbers.add(p.partition);
    topicPartitions.add(`${p.topic}/${p.partition}`);
  }
  return { count, topics, partitions: numbers, topicPartitions };
}

function isAboutUnknown(unknown: UnknownPartitions, topic: string | undefined, partition: number | undefined): boolean {
  if (unknown.count === 0) return false;
  if (topic === undefined) return partition === undefined || unknown.partitions.has(partition);
  return partition === undefined ? unknown.topics.has(topic) : unknown.topicPartitions.has(`${topic}/${partition}`);
}

/** A topic some of whose partitions' eligible leader replicas could not be read this cycle. */
function isEligibleLeadersUnknown(snapshot: Snapshot, cluster: ClusterSnapshot, topic: string | undefined): boolean {
  if (topic === undefined) return false;
  return findTopic(snapshot, cluster.alias, topic)?.partitions.some((p) => p.eligibleLeaderReplicas === null) ?? false;
}

/** `topic/partition` of every partition of the cluster whose log offsets were not read this cycle. */
function listUnreadPartitions(cluster: ClusterSnapshot): ReadonlySet<string> {
  const unread = new Set<string>();
  for (const t of cluster.topics) {
    for (const p of t.partitions) if (p.logStart === null || p.logEnd === null) unread.add(`${t.name}/${p.partition}`);
  }
  return unread;
}
