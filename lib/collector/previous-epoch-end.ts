import { type ClusterReader, type EpochEndRequest, isItemError, partitionKey } from "@/lib/kafka";
import type { LeaderMark } from "./leader-marks";
import type { PartitionState, TopicState } from "./types";

/**
 * For the partitions whose leader epoch is above the one of their last known high watermark
 * (leader-marks.ts: however many OFFLINE, unknown or stale cycles ago, or before a restart), asks
 * each current leader for its end offset of that epoch, as a follower does before it truncates
 * (Kafka's AbstractFetcherThread, KIP-101/KIP-279): that offset is where the new leader's log
 * diverges from the one the previous leader wrote. Every other cycle sends nothing. The mark is
 * attached with the answer; a failed read attaches it with `endOffset` null and is named in `errors`.
 */
export async function readPreviousEpochEnds(
  reader: ClusterReader,
  marks: ReadonlyMap<string, LeaderMark> | undefined,
  topics: TopicState[],
  errors: string[],
): Promise<TopicState[]> {
  const rises = listEpochRises(marks, topics);
  if (rises.size === 0) return topics;
  const requests = [...rises.values()].map((r) => r.request);
  let ends;
  try {
    ends = await reader.readEpochEndOffsets(requests);
  } catch (err) {
    errors.push(`OffsetForLeaderEpoch: ${err instanceof Error ? err.message : String(err)}`);
    ends = new Map();
  }
  const failed: string[] = [];
  for (const [key, end] of ends) if (isItemError(end)) failed.push(`${key}: ${end.error}`);
  if (failed.length > 0) errors.push(`OffsetForLeaderEpoch: ${failed.join(", ")}`);
  const attach = (p: PartitionState): PartitionState => {
    const key = partitionKey(p.topic, p.partition);
    const rise = rises.get(key);
    if (rise === undefined) return p;
    const end = ends.get(key);
    const endOffset = end === undefined || isItemError(end) ? null : end.endOffset;
    const { epoch, logEnd: knownLogEnd, seenAt: knownAt } = rise.mark;
    return { ...p, previousEpochEnd: { epoch, endOffset, knownLogEnd, knownAt } };
  };
  const touched = (t: TopicState) => t.partitions.some((p) => rises.has(partitionKey(p.topic, p.partition)));
  return topics.map((t) => (touched(t) ? { ...t, partitions: t.partitions.map(attach) } : t));
}

interface EpochRise {
  request: EpochEndRequest;
  mark: LeaderMark;
}

/** Partitions led now whose epoch is above their mark's (same topic). */
function listEpochRises(marks: ReadonlyMap<string, LeaderMark> | undefined, topics: readonly TopicState[]): Map<string, EpochRise> {
  const rises = new Map<string, EpochRise>();
  if (marks === undefined || marks.size === 0) return rises;
  for (const topic of topics) {
    for (const p of topic.partitions) {
      const key = partitionKey(p.topic, p.partition);
      const mark = marks.get(key);
      if (mark === undefined || p.leader === null || p.leaderEpoch <= mark.epoch) continue;
      if (mark.topicId !== null && topic.topicId !== null && mark.topicId !== topic.topicId) continue;
      const { topic: name, partition, leader, leaderEpoch } = p;
      rises.set(key, { request: { topic: name, partition, leader, currentLeaderEpoch: leaderEpoch, leaderEpoch: mark.epoch }, mark });
    }
  }
  return rises;
}
