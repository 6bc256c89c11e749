/**
 * What this cycle could not read, and the one place that carries findings over it: a level finding whose data is
 * stale or unknown now is emitted again as last cycle left it (unknown is not healthy: an alert must not resolve
 * because its data could not be read). The engine (engine.ts) calls carryUnknownFindings for every level rule, with
 * the snapshot test below or the rule's own (rule.ts UnknownTest).
 */
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { readFlowPartition } from "@/lib/collector/flow-rows";
import type { ClusterSnapshot, ConsumerGroupState, Flow, Snapshot, TopicState } from "@/lib/collector/types";
import { findCluster, findTopic, isClusterFresh } from "./snapshot-views";
import { type Finding, FindingType } from "./types";

/** Last cycle's findings that were not produced now because their data is stale or unknown. */
export function carryUnknownFindings(last: readonly Finding[], produced: readonly Finding[], isUnknown: (finding: Finding) => boolean): Finding[] {
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
export function createUnknownFindingTest(snapshot: Snapshot): (finding: Finding) => boolean {
  const staleClusters = new Set(snapshot.clusters.filter((c): boolean => !isClusterFresh(c)).map((c) => c.alias));
  const staleConnect = new Set(snapshot.connect.filter((c) => !c.reachable).map((c) => c.name));
  const flows = new Map<string, Flow>();
  for (const f of snapshot.flows) if (!flows.has(f.id)) flows.set(f.id, f);
  const unknownByFlow = new Map<string, UnknownPartitions>();
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
      if (unknown === undefined) unknownByFlow.set(flow.id, (unknown = indexUnknownPartitions(flow)));
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
    return group.offsets.some((o) => isPartitionUnread(findTopic(snapshot, cluster.alias, o.topic), o.partition));
  };
}

/** A flow's unknown partitions, indexed for every way a finding can name them. */
interface UnknownPartitions {
  count: number;
  topics: ReadonlySet<string>;
  partitions: ReadonlySet<number>;
  topicPartitions: ReadonlySet<string>;
}

/**
 * A flow's unknown partitions from its columns: without duplicates a position is unknown exactly when its slot's known
 * position is another (flow-columns.ts), so only the unknown partitions' objects are read.
 */
function indexUnknownPartitions(flow: Flow): UnknownPartitions {
  const topics = new Set<string>();
  const numbers = new Set<number>();
  const topicPartitions = new Set<string>();
  let count = 0;
  const columns = readFlowColumns(flow);
  for (let i = 0; i < columns.slotAt.length; i++) {
    if (!columns.duplicates && columns.knownPositionOf[columns.slotAt[i]!] === i) continue;
    const p = readFlowPartition(flow, i);
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

/**
 * Whether the log offsets of a partition a group commits on were not read this cycle (the cluster's topic holds the
 * partition with no log start or end; a topic name is unique in a cluster): asked per offset of a group with a
 * finding, instead of listing every partition of the cluster (~200,000 at 100,000 flow partitions).
 */
function isPartitionUnread(topic: TopicState | undefined, partition: number): boolean {
  if (topic === undefined) return false;
  // Partitions are listed by number (Kafka's metadata holds each once): the one at its own index, else found.
  const at = topic.partitions[partition];
  if (at?.partition === partition) return at.logStart === null || at.logEnd === null;
  return topic.partitions.some((p) => p.partition === partition && (p.logStart === null || p.logEnd === null));
}
