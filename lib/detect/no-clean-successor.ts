import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import { isUncleanElectionEnabled } from "./partition-health";
import { countOf, isClusterFresh, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * NO_CLEAN_SUCCESSOR — before any record is lost: a partition's leader is the only replica the
 * controller may elect cleanly. Its ISR is the leader alone and its Eligible Leader Replicas
 * (KIP-966, DescribeTopicPartitions; none on brokers that predate it) are empty, while other
 * replicas exist. If that leader is lost, the partition goes offline — or, with unclean leader
 * election enabled, an out-of-sync replica takes over and acknowledged records are truncated
 * (UNCLEAN_TRUNCATION). With ELR, a replica that left the ISR below min.insync.replicas cleanly
 * stays electable (PartitionChangeBuilder.isValidNewLeader), so such a partition is not listed.
 *
 * LOGIC — per fresh cluster, per topic: partitions with a leader, more than one replica, ISR ⊆
 * {leader} and `eligibleLeaderReplicas` read as [] (the collector reads it only for those).
 * Partitions whose ELR could not be read (null) are not judged; run-detectors carries the topic's
 * previous finding meanwhile. One finding per topic `NO_CLEAN_SUCCESSOR|<cluster>|<topic>`,
 * warning.
 */
export function detectNoCleanSuccessor(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    for (const topic of cluster.topics) {
      const alone = topic.partitions.filter(isLeaderWithoutSuccessor);
      if (alone.length > 0) findings.push(createFinding(ctx, cluster, topic, alone));
    }
  }
  return findings;
}

function isLeaderWithoutSuccessor(p: PartitionState): boolean {
  const elr = p.eligibleLeaderReplicas;
  const aloneInSync = p.leader !== null && p.replicas.length > 1 && p.isr.every((id) => id === p.leader);
  return aloneInSync && elr !== undefined && elr !== null && elr.length === 0;
}

function createFinding(ctx: DetectorContext, cluster: ClusterSnapshot, topic: TopicState, partitions: PartitionState[]): Finding {
  const ids = partitions.map((p) => String(p.partition));
  const leaders = [...new Set(partitions.map((p) => p.leader))].sort((a, b) => (a ?? 0) - (b ?? 0));
  const unclean = isUncleanElectionEnabled(cluster, topic) === true;
  const consequence = unclean
    ? "an out-of-sync replica takes over (unclean leader election is enabled) and acknowledged records are lost"
    : "the partition goes offline";
  return {
    key: `${FindingType.NO_CLEAN_SUCCESSOR}|${cluster.alias}|${topic.name}`,
    type: FindingType.NO_CLEAN_SUCCESSOR,
    severity: Severity.WARNING,
    cluster: cluster.alias,
    topic: topic.name,
    ...(partitions.length === 1 && partitions[0] !== undefined ? { partition: partitions[0].partition } : {}),
    summary:
      `${topic.name} at ${cluster.alias}: ${countOf(partitions.length, "partition")} (${summarizeNames(ids)}) can be led cleanly only by ` +
      `${leaders.length === 1 ? `broker ${leaders[0]}` : `their leaders (brokers ${leaders.join(", ")})`}: no other replica is in sync or eligible (ELR); ` +
      `if ${leaders.length === 1 ? "it is" : "one is"} lost, ${consequence}`,
    evidence: {
      partitions: partitions.length,
      partitionIds: ids.join(","),
      leaders: leaders.join(","),
      replicationFactor: Math.max(...partitions.map((p) => p.replicas.length)),
      uncleanLeaderElection: unclean,
    },
    observedAt: ctx.now,
  };
}
