import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import type { EventCandidate } from "./events";
import { countOf, findCluster, formatRange, isClusterFresh, namePartition, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * UNCLEAN_TRUNCATION — a partition's leader epoch rose and its log end (high watermark) went
 * backwards between two cycles: a new leader without the latest records took over (unclean leader
 * election, KAFKA-763) and acknowledged records were truncated.
 *
 * LOGIC — per cluster fresh in this cycle and the previous one, per partition present in both:
 * - the topic ID is not known to differ (a recreated topic is TOPIC_RESET, not a truncation);
 * - both log ends known, leaderEpoch now > before, logEnd now < before →
 *   lost [newLogEnd, previousLogEnd − 1], lostCount = previousLogEnd − newLogEnd.
 * lostCount is a LOWER bound: records written after the election reuse the truncated offsets
 * before the collector looks. The exact divergence point needs OffsetForLeaderEpoch(previous
 * epoch) on the new leader, which the snapshot does not carry.
 * One finding per truncation: scope `UNCLEAN_TRUNCATION|<cluster>|<topic>|<partition>`, tagged and
 * keyed by the new leader epoch.
 */
export function detectUncleanTruncation(ctx: DetectorContext): EventCandidate[] {
  if (ctx.previous === null) return [];
  const candidates: EventCandidate[] = [];
  for (const cluster of ctx.current.clusters) {
    const before = findCluster(ctx.previous, cluster.alias);
    if (!isClusterFresh(cluster) || !isClusterFresh(before)) continue;
    for (const topic of cluster.topics) {
      const oldTopic = before.topics.find((t) => t.name === topic.name);
      if (oldTopic === undefined || !isSameTopic(oldTopic, topic)) continue;
      for (const partition of topic.partitions) {
        const old = oldTopic.partitions.find((p) => p.partition === partition.partition);
        if (old !== undefined && isTruncated(old, partition)) candidates.push(createTruncationCandidate(ctx, cluster, old, partition));
      }
    }
  }
  return candidates;
}

function isSameTopic(before: TopicState, now: TopicState): boolean {
  return before.topicId === null || now.topicId === null || before.topicId === now.topicId;
}

function isTruncated(before: PartitionState, now: PartitionState): boolean {
  if (before.logEnd === null || now.logEnd === null) return false;
  return now.leaderEpoch > before.leaderEpoch && now.logEnd < before.logEnd;
}

function createTruncationCandidate(ctx: DetectorContext, cluster: ClusterSnapshot, before: PartitionState, now: PartitionState): EventCandidate {
  // isTruncated checked both log ends.
  const previousEnd = before.logEnd ?? 0n;
  const newEnd = now.logEnd ?? 0n;
  const lost = previousEnd - newEnd;
  const finding: Omit<Finding, "key" | "observedAt"> = {
    type: FindingType.UNCLEAN_TRUNCATION,
    severity: Severity.CRITICAL,
    cluster: cluster.alias,
    topic: now.topic,
    partition: now.partition,
    summary:
      `${namePartition(now.topic, now.partition)} at ${cluster.alias} lost at least ${countOf(lost, "acknowledged record")} ` +
      `(offsets ${formatRange(newEnd, previousEnd - 1n)}) when leader epoch ${before.leaderEpoch} → ${now.leaderEpoch} truncated the log (unclean leader election?)`,
    evidence: {
      previousLogEnd: previousEnd.toString(),
      newLogEnd: newEnd.toString(),
      lostCount: lost.toString(),
      lostCountIsLowerBound: true,
      firstLostOffset: newEnd.toString(),
      lastLostOffset: (previousEnd - 1n).toString(),
      previousLeaderEpoch: before.leaderEpoch,
      newLeaderEpoch: now.leaderEpoch,
      leader: now.leader,
    },
  };
  return {
    scope: `${FindingType.UNCLEAN_TRUNCATION}|${cluster.alias}|${now.topic}|${now.partition}`,
    tag: String(now.leaderEpoch),
    keySuffix: `epoch${now.leaderEpoch}`,
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: ctx.now }),
  };
}
