import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import { readClusterColumns, TopicFlag } from "./cluster-columns";
import { isUncleanElectionEnabled } from "./partition-health";
import { countOf, isClusterFresh, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * NO_CLEAN_SUCCESSOR — before any record is lost: no replica but the leader could be elected
 * cleanly if the leader were lost now. Mirrors the KRaft controller (metadata/.../controller/
 * PartitionChangeBuilder.java, KIP-966): once the leader is gone, a new leader must be in the ISR
 * or — only when the ISR is then empty — in the Eligible Leader Replicas (ELR), and on a live
 * (unfenced) broker (isValidNewLeader). The controller keeps an ELR only while the ISR is below
 * min.insync.replicas: replicas leaving the ISR then join it unless they shut down uncleanly, and it
 * is cleared once the ISR is at or above min.insync.replicas (maybePopulateTargetElr); brokers without
 * the ELR feature (before 4.1, or not enabled) report it empty.
 *
 * LOGIC — per fresh cluster, per topic: partitions with a leader, more than one replica, ISR ⊆
 * {leader}, and `eligibleLeaderReplicas` read (the collector reads it only for those) with no member
 * among the cluster's brokers (Metadata lists unfenced brokers only). Partitions whose ELR could not
 * be read (null) are not judged; the engine (unknown-data.ts) carries the topic's previous finding meanwhile. One
 * finding per topic `NO_CLEAN_SUCCESSOR|<cluster>|<topic>`, warning.
 *
 * The summary says what the leader does meanwhile, by the topic's min.insync.replicas m (the
 * effective one is min(m, replicas): Partition.effectiveMinIsr) — the condition does not depend on
 * it, the ELR already does:
 * - m ≥ 2, so the lone ISR is below it: the leader rejects acks=all writes (NOT_ENOUGH_REPLICAS) and
 *   does not advance the high watermark (Partition.maybeIncrementLeaderHW, Kafka 3.7+, KAFKA-15583):
 *   records written with acks=0/1 stay invisible to consumers and to MM2;
 * - m = 1: the leader alone acknowledges and commits every write, and no ELR is kept at that size;
 * - m unknown (configs not read yet): neither is said.
 */
export function detectNoCleanSuccessor(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    const live = new Set(cluster.brokers.map((b) => b.nodeId));
    const { topicFlags } = readClusterColumns(cluster);
    for (let t = 0; t < cluster.topics.length; t++) {
      // Only a topic with a leader alone in sync and its ELR read can have such a partition (cluster-columns.ts).
      if ((topicFlags[t]! & TopicFlag.LEADER_ALONE) === 0) continue;
      const topic = cluster.topics[t]!;
      const alone = topic.partitions.filter((p) => isLeaderWithoutSuccessor(p, live));
      if (alone.length > 0) findings.push(createFinding(ctx, cluster, topic, alone, live));
    }
  }
  return findings;
}

function isLeaderWithoutSuccessor(p: PartitionState, live: ReadonlySet<number>): boolean {
  const elr = p.eligibleLeaderReplicas;
  const aloneInSync = p.leader !== null && p.replicas.length > 1 && p.isr.every((id) => id === p.leader);
  return aloneInSync && elr !== undefined && elr !== null && !elr.some((id) => live.has(id));
}

function createFinding(ctx: DetectorContext, cluster: ClusterSnapshot, topic: TopicState, partitions: PartitionState[], live: ReadonlySet<number>): Finding {
  const ids = partitions.map((p) => String(p.partition));
  const leaders = [...new Set(partitions.map((p) => p.leader))].sort((a, b) => (a ?? 0) - (b ?? 0));
  const eligibleDown = [...new Set(partitions.flatMap((p) => p.eligibleLeaderReplicas ?? []))].filter((id) => !live.has(id)).sort((a, b) => a - b);
  const minIsr = topic.configs?.minInsyncReplicas ?? null;
  const unclean = isUncleanElectionEnabled(cluster, topic) === true;
  const one = leaders.length === 1;
  const consequence = unclean
    ? "an out-of-sync replica takes over (unclean leader election is enabled) and acknowledged records are lost"
    : "the partition goes offline";
  const eligible = eligibleDown.length === 0 ? "none is an eligible leader replica (ELR)" : `its eligible leader replicas (ELR) are down (brokers ${eligibleDown.join(", ")})`;
  return {
    key: `${FindingType.NO_CLEAN_SUCCESSOR}|${cluster.alias}|${topic.name}`,
    type: FindingType.NO_CLEAN_SUCCESSOR,
    severity: Severity.WARNING,
    cluster: cluster.alias,
    topic: topic.name,
    ...(partitions.length === 1 && partitions[0] !== undefined ? { partition: partitions[0].partition } : {}),
    summary:
      `${topic.name} at ${cluster.alias}: ${countOf(partitions.length, "partition")} (${summarizeNames(ids)}) can be led cleanly only by ` +
      `${one ? `broker ${leaders[0]}` : `their leaders (brokers ${leaders.join(", ")})`}: no other replica is in sync and ${eligible}` +
      `${describeMinIsr(minIsr, one)}; if ${one ? "it is" : "one is"} lost, ${consequence}`,
    evidence: {
      partitions: partitions.length,
      partitionIds: ids.join(","),
      leaders: leaders.join(","),
      replicationFactor: Math.max(...partitions.map((p) => p.replicas.length)),
      uncleanLeaderElection: unclean,
      minInsyncReplicas: minIsr,
      underMinIsr: minIsr === null ? null : minIsr >= 2,
      eligibleLeaderReplicasDown: eligibleDown.join(","),
    },
    observedAt: ctx.now,
  };
}

/** What the lone leader does with writes, by min.insync.replicas (see the rule above). */
function describeMinIsr(minIsr: number | null, one: boolean): string {
  if (minIsr === null) return "";
  const leader = one ? "the leader" : "each leader";
  if (minIsr >= 2) {
    return (
      `; the ISR is below min.insync.replicas=${minIsr}: ${leader} rejects acks=all writes (NOT_ENOUGH_REPLICAS) and holds the high ` +
      "watermark, so records written with acks=0/1 stay invisible to consumers and MM2"
    );
  }
  return `; with min.insync.replicas=${minIsr} ${leader} alone acknowledges and commits every write, and Kafka keeps no eligible leader replicas then`;
}
