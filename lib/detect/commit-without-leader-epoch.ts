import type { ClusterSnapshot, ConsumerGroupState } from "@/lib/collector/types";
import { readTopicPositions } from "./cluster-columns";
import { isUncleanElectionEnabled } from "./partition-health";
import { countOf, isClusterFresh, listKnownGroups, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * COMMIT_WITHOUT_LEADER_EPOCH — a consumer group commits offsets without a leader epoch (−1), so
 * after an unclean leader election it cannot tell that the log was truncated under it and silently
 * skips the records written again at those offsets (KIP-320; Kafka PR #14454, KIP-1094). kafkajs
 * never sends one. A risk flag, not an incident.
 *
 * LOGIC — per fresh cluster, per group whose offsets were read this cycle, with at least one committed offset whose
 * committedLeaderEpoch is −1: one finding `COMMIT_WITHOUT_LEADER_EPOCH|<cluster>|<group>` with the
 * partition and topic counts. Severity warning when any of those topics has unclean leader
 * election enabled (the risk can materialise), else info.
 */
export function detectCommitsWithoutLeaderEpoch(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    for (const group of listKnownGroups(cluster)) {
      const finding = checkGroup(ctx, cluster, group);
      if (finding !== null) findings.push(finding);
    }
  }
  return findings;
}

function checkGroup(ctx: DetectorContext, cluster: ClusterSnapshot, group: ConsumerGroupState): Finding | null {
  const withoutEpoch = group.offsets.filter((o) => o.committedLeaderEpoch < 0);
  if (withoutEpoch.length === 0) return null;
  const topics = [...new Set(withoutEpoch.map((o) => o.topic))];
  // The cluster's map of topics by name (cluster-columns.ts), not a search of every topic per name.
  const positions = readTopicPositions(cluster).byName;
  const exposed = topics.filter((name) => {
    const at = positions.get(name);
    return at !== undefined && isUncleanElectionEnabled(cluster, cluster.topics[at]!) === true;
  });
  const risk = exposed.length > 0 ? `; unclean election is enabled on ${summarizeNames(exposed)}` : "";
  return {
    key: `${FindingType.COMMIT_WITHOUT_LEADER_EPOCH}|${cluster.alias}|${group.groupId}`,
    type: FindingType.COMMIT_WITHOUT_LEADER_EPOCH,
    severity: exposed.length > 0 ? Severity.WARNING : Severity.INFO,
    cluster: cluster.alias,
    group: group.groupId,
    summary:
      `Group ${group.groupId} at ${cluster.alias} commits without a leader epoch on ${countOf(withoutEpoch.length, "partition")} ` +
      `(${countOf(topics.length, "topic")}): it cannot detect log truncation after an unclean leader election${risk}`,
    evidence: {
      partitions: withoutEpoch.length,
      committedPartitions: group.offsets.length,
      topics: topics.length,
      topicNames: topics.join(","),
      uncleanElectionTopics: exposed.join(",") || null,
    },
    observedAt: ctx.now,
  };
}
