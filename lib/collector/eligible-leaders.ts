import { type ClusterReader, partitionKey } from "@/lib/kafka";
import { type ClusterPartitionRows, findTopicRows } from "./cluster-partition-rows";
import type { PartitionState, TopicState } from "./types";

/**
 * A partition whose in-sync replicas are its leader alone while it has other replicas: the only
 * case where its Eligible Leader Replicas (KIP-966) decide whether anyone but the leader can take
 * over cleanly. Every other partition is skipped, so most cycles send nothing.
 */
export function hasLeaderAloneInSync(p: PartitionState): boolean {
  return p.leader !== null && p.replicas.length > 1 && p.isr.every((id) => id === p.leader);
}

/** hasLeaderAloneInSync of the partition at `at` of the cluster poll's rows. */
function hasLeaderAloneInSyncAt(rows: ClusterPartitionRows, at: number): boolean {
  const leader = rows.leader[at]!;
  if (leader < 0 || rows.countList(at, 0) <= 1) return false;
  for (let i = rows.listStart[at * 3 + 1]!; i < rows.listStart[at * 3 + 2]!; i++) if (rows.ids[i] !== leader) return false;
  return true;
}

/** Whether a partition of the topic (its rows, else its array) has its leader alone in sync. */
function hasTopicLeaderAloneInSync(topic: TopicState): boolean {
  const rows = findTopicRows(topic);
  if (rows === undefined) return topic.partitions.some(hasLeaderAloneInSync);
  for (let at = rows.from; at < rows.to; at++) if (hasLeaderAloneInSyncAt(rows.rows, at)) return true;
  return false;
}

/**
 * Reads the ELR of the partitions `hasLeaderAloneInSync` selects (one DescribeTopicPartitions for
 * their topics) and attaches it: the sorted list, [] when the brokers predate KIP-966 (no replica
 * is eligible then), null when it could not be read (the reason is added to `errors`). A topic with
 * rows (the cluster poll's) gains it in its rows and is kept; a topic with a partitions array is copied.
 */
export async function readEligibleLeaderReplicas(
  reader: ClusterReader,
  topics: TopicState[],
  errors: string[],
): Promise<TopicState[]> {
  const wanted = topics.filter(hasTopicLeaderAloneInSync).map((t) => t.name);
  if (wanted.length === 0) return topics;
  let elr: Map<string, number[]> | null;
  try {
    elr = await reader.readEligibleLeaders(wanted);
  } catch (err) {
    errors.push(`DescribeTopicPartitions: ${err instanceof Error ? err.message : String(err)}`);
    elr = new Map();
  }
  // No DescribeTopicPartitions (null): the brokers predate KIP-966, no replica is eligible.
  const elrOf = (topic: string, partition: number) =>
    elr === null ? [] : (elr.get(partitionKey(topic, partition)) ?? null);
  const attach = (p: PartitionState): PartitionState =>
    hasLeaderAloneInSync(p) ? { ...p, eligibleLeaderReplicas: elrOf(p.topic, p.partition) } : p;
  return topics.map((t) => {
    if (!wanted.includes(t.name)) return t;
    const rows = findTopicRows(t);
    if (rows === undefined) return { ...t, partitions: t.partitions.map(attach) };
    for (let at = rows.from; at < rows.to; at++) {
      if (!hasLeaderAloneInSyncAt(rows.rows, at)) continue;
      rows.rows.addRare(at, { eligibleLeaderReplicas: elrOf(t.name, rows.rows.partition[at]!) });
    }
    return t;
  });
}
