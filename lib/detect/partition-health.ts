import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import { readClusterColumns, TopicFlag } from "./cluster-columns";
import { countOf, isClusterFresh, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding, type FindingTypeName, type SeverityName } from "./types";

/**
 * Partition health of every fresh cluster (stale clusters are not judged):
 *
 * LOGIC
 * - UNCLEAN_ELECTION_ENABLED (warning, one per cluster `UNCLEAN_ELECTION_ENABLED|<cluster>`): topics
 *   whose effective unclean.leader.election.enable is true — the topic config when read (Describe
 *   Configs returns the effective value, broker default included), else the broker default.
 *   An unclean election loses acknowledged records (see UNCLEAN_TRUNCATION).
 * - UNDER_REPLICATED (warning, one per topic `UNDER_REPLICATED|<cluster>|<topic>`): partitions with
 *   a leader whose ISR is shorter than the replica list.
 * - OFFLINE (critical, one per topic `OFFLINE|<cluster>|<topic>`): partitions without a leader.
 */
export function detectPartitionHealth(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    const unclean = checkUncleanElection(ctx, cluster);
    if (unclean !== null) findings.push(unclean);
    const { topicFlags } = readClusterColumns(cluster);
    for (let t = 0; t < cluster.topics.length; t++) {
      // Only a topic with such a partition is read again (its columns say which: one pass a cluster).
      if ((topicFlags[t]! & (TopicFlag.OFFLINE | TopicFlag.UNDER_REPLICATED)) === 0) continue;
      const topic = cluster.topics[t]!;
      const offline = topic.partitions.filter((p) => p.leader === null);
      const under = topic.partitions.filter((p) => p.leader !== null && p.isr.length < p.replicas.length);
      if (offline.length > 0) findings.push(createTopicFinding(ctx, cluster, topic, FindingType.OFFLINE, Severity.CRITICAL, offline));
      if (under.length > 0) findings.push(createTopicFinding(ctx, cluster, topic, FindingType.UNDER_REPLICATED, Severity.WARNING, under));
    }
  }
  return findings;
}

/** The effective unclean.leader.election.enable of a topic; null when neither topic nor broker value is known. */
export function isUncleanElectionEnabled(cluster: ClusterSnapshot, topic: TopicState): boolean | null {
  return topic.configs?.uncleanLeaderElection ?? cluster.uncleanLeaderElectionDefault;
}

function checkUncleanElection(ctx: DetectorContext, cluster: ClusterSnapshot): Finding | null {
  const topics = cluster.topics.filter((t) => !t.internal && isUncleanElectionEnabled(cluster, t) === true).map((t) => t.name);
  if (topics.length === 0) return null;
  return {
    key: `${FindingType.UNCLEAN_ELECTION_ENABLED}|${cluster.alias}`,
    type: FindingType.UNCLEAN_ELECTION_ENABLED,
    severity: Severity.WARNING,
    cluster: cluster.alias,
    summary: `${cluster.alias}: unclean leader election is enabled for ${countOf(topics.length, "topic")} (${summarizeNames(topics)}); an unclean election loses acknowledged records`,
    evidence: { topics: topics.length, topicNames: topics.join(","), brokerDefault: cluster.uncleanLeaderElectionDefault },
    observedAt: ctx.now,
  };
}

function createTopicFinding(
  ctx: DetectorContext,
  cluster: ClusterSnapshot,
  topic: TopicState,
  type: FindingTypeName,
  severity: SeverityName,
  partitions: PartitionState[],
): Finding {
  const ids = partitions.map((p) => String(p.partition));
  const what = type === FindingType.OFFLINE ? "have no leader" : "have fewer in-sync replicas than replicas";
  return {
    key: `${type}|${cluster.alias}|${topic.name}`,
    type,
    severity,
    cluster: cluster.alias,
    topic: topic.name,
    ...(partitions.length === 1 && partitions[0] !== undefined ? { partition: partitions[0].partition } : {}),
    summary: `${topic.name} at ${cluster.alias}: ${partitions.length} of ${topic.partitions.length} partitions ${what} (partitions ${summarizeNames(ids)})`,
    evidence: {
      partitions: partitions.length,
      partitionIds: ids.join(","),
      smallestIsr: Math.min(...partitions.map((p) => p.isr.length)),
      replicationFactor: Math.max(...partitions.map((p) => p.replicas.length)),
    },
    observedAt: ctx.now,
  };
}
