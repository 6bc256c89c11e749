import { type ClusterReader, type EpochEndRequest, isItemError, partitionKey } from "@/lib/kafka";
import type { ClusterSnapshot, PartitionState, TopicState } from "./types";

/**
 * For the partitions whose leader epoch rose since the previous fresh cycle (rare: leader
 * changes), asks each current leader for its end offset of the previous epoch, as a follower does
 * before it truncates (Kafka's AbstractFetcherThread, KIP-101/KIP-279): that offset is where the
 * new leader's log diverges from the one the previous leader wrote. Every other cycle sends
 * nothing. A failed read leaves the field absent and is named in `errors`.
 */
export async function readPreviousEpochEnds(
  reader: ClusterReader,
  previous: ClusterSnapshot | null,
  topics: TopicState[],
  errors: string[],
): Promise<TopicState[]> {
  const requests = listEpochRises(previous, topics);
  if (requests.length === 0) return topics;
  let ends;
  try {
    ends = await reader.readEpochEndOffsets(requests);
  } catch (err) {
    errors.push(`OffsetForLeaderEpoch: ${err instanceof Error ? err.message : String(err)}`);
    return topics;
  }
  const failed: string[] = [];
  for (const [key, end] of ends) if (isItemError(end)) failed.push(`${key}: ${end.error}`);
  if (failed.length > 0) errors.push(`OffsetForLeaderEpoch: ${failed.join(", ")}`);
  const asked = new Map(requests.map((r) => [partitionKey(r.topic, r.partition), r.leaderEpoch]));
  const attach = (p: PartitionState): PartitionState => {
    const key = partitionKey(p.topic, p.partition);
    const end = ends.get(key);
    const epoch = asked.get(key);
    if (end === undefined || epoch === undefined || isItemError(end)) return p;
    return { ...p, previousEpochEnd: { epoch, endOffset: end.endOffset } };
  };
  const touched = (t: TopicState) => t.partitions.some((p) => asked.has(partitionKey(p.topic, p.partition)));
  return topics.map((t) => (touched(t) ? { ...t, partitions: t.partitions.map(attach) } : t));
}

/** Partitions led now whose epoch is above the previous fresh cycle's (same topic, previous log end known). */
function listEpochRises(previous: ClusterSnapshot | null, topics: readonly TopicState[]): EpochEndRequest[] {
  if (previous === null || !previous.reachable || previous.stale) return [];
  const requests: EpochEndRequest[] = [];
  for (const topic of topics) {
    const before = previous.topics.find((t) => t.name === topic.name);
    const recreated = before !== undefined && before.topicId !== null && topic.topicId !== null && before.topicId !== topic.topicId;
    if (before === undefined || recreated) continue;
    for (const p of topic.partitions) {
      const old = before.partitions.find((o) => o.partition === p.partition);
      if (old === undefined || old.logEnd === null || p.leader === null || p.leaderEpoch <= old.leaderEpoch) continue;
      const { topic: name, partition, leader, leaderEpoch } = p;
      requests.push({ topic: name, partition, leader, currentLeaderEpoch: leaderEpoch, leaderEpoch: old.leaderEpoch });
    }
  }
  return requests;
}
