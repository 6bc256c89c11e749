import { type ClusterReader, type EpochEndRequest, isItemError, partitionKey } from "@/lib/kafka";
import { findTopicRows } from "./cluster-partition-rows";
import type { LeaderMark } from "./leader-marks";
import type { PartitionState, PreviousEpochEnd, TopicState } from "./types";

/**
 * For the partitions whose leader epoch is above the one of their last known high watermark
 * (leader-marks.ts: however many OFFLINE, unknown or stale cycles ago, or before a restart), asks
 * each current leader for its end offset of that epoch, as a follower does before it truncates
 * (Kafka's AbstractFetcherThread, KIP-101/KIP-279): that offset is where the new leader's log
 * diverges from the one the previous leader wrote. Every other cycle sends nothing. The mark is
 * attached with the answer; a failed read attaches it with `endOffset` null and is named in `errors`. A topic with
 * rows (the cluster poll's) gains it in its rows and is kept; a topic with a partitions array is copied.
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
  const describeEnd = (key: string, mark: LeaderMark): PreviousEpochEnd => {
    const end = ends.get(key);
    const endOffset = end === undefined || isItemError(end) ? null : end.endOffset;
    return { epoch: mark.epoch, endOffset, knownLogEnd: mark.logEnd, knownAt: mark.seenAt };
  };
  const risen = new Set(requests.map((r) => r.topic));
  for (const topic of topics) {
    const rows = findTopicRows(topic);
    if (rows === undefined || !risen.has(topic.name)) continue;
    for (let at = rows.from; at < rows.to; at++) {
      const key = partitionKey(topic.name, rows.rows.partition[at]!);
      const rise = rises.get(key);
      if (rise !== undefined) rows.rows.addRare(at, { previousEpochEnd: describeEnd(key, rise.mark) });
    }
  }
  const attach = (p: PartitionState): PartitionState => {
    const key = partitionKey(p.topic, p.partition);
    const rise = rises.get(key);
    return rise === undefined ? p : { ...p, previousEpochEnd: describeEnd(key, rise.mark) };
  };
  const touched = (t: TopicState) =>
    findTopicRows(t) === undefined && t.partitions.some((p) => rises.has(partitionKey(p.topic, p.partition)));
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
  const consider = (topic: TopicState, partition: number, leader: number | null, leaderEpoch: number) => {
    const key = partitionKey(topic.name, partition);
    const mark = marks.get(key);
    if (mark === undefined || leader === null || leaderEpoch <= mark.epoch) return;
    if (mark.topicId !== null && topic.topicId !== null && mark.topicId !== topic.topicId) return;
    const request = { topic: topic.name, partition, leader, currentLeaderEpoch: leaderEpoch, leaderEpoch: mark.epoch };
    rises.set(key, { request, mark });
  };
  for (const topic of topics) {
    const rows = findTopicRows(topic);
    if (rows === undefined) {
      for (const p of topic.partitions) consider(topic, p.partition, p.leader, p.leaderEpoch);
      continue;
    }
    const { partition, leaderEpoch } = rows.rows;
    for (let at = rows.from; at < rows.to; at++) {
      consider(topic, partition[at]!, rows.rows.leaderOf(at), leaderEpoch[at]!);
    }
  }
  return rises;
}
