import type { TopicConfigs } from "@/lib/collector/types";
import type { ReadinessRef, ReadinessRule, ReadinessStatus } from "../readiness-rule";
import { makeOutcome, pickWorstStatus } from "./outcome";
import { countPartitionsByTopic, findFreshCluster, indexTopics } from "./topic-index";

/**
 * The target topic's settings that decide whether records survive are not weaker than the
 * source's: a different cleanup.policy loses records (KAFKA-12254), shorter retention deletes
 * copies the source still holds, a smaller max.message.bytes rejects records the source accepts,
 * a lower min.insync.replicas or unclean election may lose acknowledged records.
 */
export const topicConfigsCheck: ReadinessRule = {
  id: "configs",
  title: "Target topic settings",
  check: ({ snapshot, flow }) => {
    const source = findFreshCluster(snapshot, flow.source);
    const target = findFreshCluster(snapshot, flow.target);
    if (source === null || target === null) {
      return makeOutcome("unknown", `${source === null ? flow.source : flow.target} did not answer this cycle`);
    }
    const problems: { status: ReadinessStatus; text: string; ref: ReadinessRef }[] = [];
    let unread = 0;
    const [sourceTopics, targetTopics] = [indexTopics(source), indexTopics(target)];
    for (const [topic, { targetTopic }] of countPartitionsByTopic(flow)) {
      const from = sourceTopics.get(topic)?.configs ?? null;
      const to = targetTopics.get(targetTopic)?.configs ?? null;
      if (from === null || to === null) {
        unread++;
        continue;
      }
      for (const drift of compareTopicConfigs(from, to)) {
        problems.push({ ...drift, text: `${targetTopic}: ${drift.text}`, ref: { kind: "topic", topic } });
      }
    }
    if (problems.length > 0) {
      const settings = `${problems.length} setting${problems.length === 1 ? "" : "s"}`;
      const message = `${settings} weaker on ${flow.target}: ${problems[0]!.text}`;
      return makeOutcome(pickWorstStatus(problems.map((p) => p.status)), message, problems);
    }
    if (unread > 0) {
      const topics = `${unread} topic${unread === 1 ? "" : "s"}`;
      return makeOutcome("unknown", `settings of ${topics} not read yet (refreshed every few cycles)`);
    }
    return makeOutcome(
      "ok",
      "cleanup.policy, retention, max.message.bytes, min.insync.replicas and unclean election on the target match " +
        "or are safer than the source's",
    );
  },
};

function compareTopicConfigs(source: TopicConfigs, target: TopicConfigs): { status: ReadinessStatus; text: string }[] {
  const out: { status: ReadinessStatus; text: string }[] = [];
  if (normalizePolicy(source.cleanupPolicy) !== normalizePolicy(target.cleanupPolicy)) {
    const text = `cleanup.policy=${target.cleanupPolicy}, source has ${source.cleanupPolicy}`;
    out.push({ status: "not-ready", text });
  }
  if (isShorter(target.retentionMs, source.retentionMs)) {
    const text = `retention.ms=${describeLimit(target.retentionMs)}, source keeps ${describeLimit(source.retentionMs)}`;
    out.push({ status: "degraded", text });
  }
  if (isShorter(target.retentionBytes, source.retentionBytes)) {
    const [to, from] = [describeLimit(target.retentionBytes), describeLimit(source.retentionBytes)];
    out.push({ status: "degraded", text: `retention.bytes=${to}, source keeps ${from}` });
  }
  // Degraded, not not-ready: every record copied so far fitted (a larger one fails MM2's task with
  // RecordTooLargeException, which the connectors check reports), so failing over now loses nothing; it is the
  // next large record that stops the copy, and producers that fail over to the target get it rejected.
  const [maxFrom, maxTo] = [source.maxMessageBytes ?? null, target.maxMessageBytes ?? null];
  if (maxFrom !== null && maxTo !== null && maxTo < maxFrom) {
    const text = `max.message.bytes=${maxTo}, source accepts ${maxFrom}: larger records stop MM2's copy`;
    out.push({ status: "degraded", text });
  }
  // The effective values (the topic's override, else the broker's): fewer replicas must acknowledge on the target.
  const [minFrom, minTo] = [source.minInsyncReplicas, target.minInsyncReplicas];
  if (minFrom !== null && minTo !== null && minTo < minFrom) {
    out.push({ status: "degraded", text: `min.insync.replicas=${minTo}, source requires ${minFrom}` });
  }
  if (target.uncleanLeaderElection && !source.uncleanLeaderElection) {
    out.push({ status: "degraded", text: "unclean.leader.election.enable=true (the source's is false)" });
  }
  return out;
}

/** "compact,delete" and "delete,compact" are one policy. */
function normalizePolicy(policy: string): string {
  return policy
    .split(",")
    .map((p) => p.trim())
    .sort()
    .join(",");
}

/** null = infinite (-1). */
function isShorter(target: bigint | null, source: bigint | null): boolean {
  return target !== null && (source === null || target < source);
}

function describeLimit(value: bigint | null): string {
  return value === null ? "-1 (forever)" : value.toString();
}
