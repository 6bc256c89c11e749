import { type ClusterReader, partitionKey } from "@/lib/kafka";
import type { PartitionState, TopicState } from "./types";

/**
 * A partition whose in-sync replicas are its leader alone while it has other replicas: the only
 * case where its Eligible Leader Replicas (KIP-966) decide whether anyone but the leader can take
 * over cleanly. Every other partition is skipped, so most cycles send nothing.
 */
export function hasLeaderAloneInSync(p: PartitionState): boolean {
  return p.leader !== null && p.replicas.length > 1 && p.isr.every((id) => id === p.leader);
}

/**
 * Reads the ELR of the partitions `hasLeaderAloneInSync` selects (one DescribeTopicPartitions for
 * their topics) and attaches it: the sorted list, [] when the brokers predate KIP-966 (no replica
 * is eligible then), null when it could not be read (the reason is added to `errors`).
 */
export async function readEligibleLeaderReplicas(
  reader: ClusterReader,
  topics: TopicState[],
  errors: string[],
): Promise<TopicState[]> {
  const wanted = topics.filter((t) => t.partitions.some(hasLeaderAloneInSync)).map((t) => t.name);
  if (wanted.length === 0) return topics;
  let elr: Map<string, number[]> | null;
  try {
    elr = await reader.readEligibleLeaders(wanted);
  } catch (err) {
    errors.push(`DescribeTopicPartitions: ${err instanceof Error ? err.message : String(err)}`);
    elr = new Map();
  }
  // No DescribeTopicPartitions (null): the brokers predate KIP-966, no replica is eligible.
  const elrOf = (p: PartitionState) => (elr === null ? [] : (elr.get(partitionKey(p.topic, p.partition)) ?? null));
  const attach = (p: PartitionState): PartitionState => (hasLeaderAloneInSync(p) ? { ...p, eligibleLeaderReplicas: elrOf(p) } : p);
  return topics.map((t) => (wanted.includes(t.name) ? { ...t, partitions: t.partitions.map(attach) } : t));
}
