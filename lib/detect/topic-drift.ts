import type { Flow, Snapshot, TopicState } from "@/lib/collector/types";

/** One setting of a replicated topic, source against target. */
export interface SettingDiff {
  setting: "partitions" | "cleanup.policy" | "retention.ms" | "retention.bytes" | "max.message.bytes" | "min.insync.replicas" | "unclean.leader.election.enable";
  /** As Kafka writes the value (`-1` for no limit); null when not read. */
  source: string | null;
  target: string | null;
  /** The target keeps fewer records, accepts smaller ones, or is easier to lose records from than the source. */
  weaker: boolean;
}

/** A replicated topic whose source and target were both read: every compared setting, weaker ones flagged. */
export interface TopicDrift {
  topic: string;
  targetTopic: string;
  settings: SettingDiff[];
}

/**
 * Source vs target of every replicated topic of a flow that exists on both sides (a topic missing on
 * the target is coverage, not drift). Configs not read yet on either side compare as unknown (never
 * weaker): only the partition count is compared then.
 */
export function compareFlowTopics(snapshot: Snapshot, flow: Flow): TopicDrift[] {
  const source = snapshot.clusters.find((c) => c.alias === flow.source);
  const target = snapshot.clusters.find((c) => c.alias === flow.target);
  if (source === undefined || target === undefined) return [];
  const sourceTopics = new Map(source.topics.map((t) => [t.name, t]));
  const targetTopics = new Map(target.topics.map((t) => [t.name, t]));
  const drifts: TopicDrift[] = [];
  const seen = new Set<string>();
  for (const p of flow.partitions) {
    if (seen.has(p.topic)) continue;
    seen.add(p.topic);
    const from = sourceTopics.get(p.topic);
    const to = targetTopics.get(p.targetTopic);
    if (from !== undefined && to !== undefined) drifts.push({ topic: p.topic, targetTopic: p.targetTopic, settings: compareTopicSettings(from, to) });
  }
  return drifts;
}

/**
 * Compares the settings that decide whether records survive on the target (issue 14): a different
 * cleanup.policy deletes or compacts what the source keeps (KAFKA-12254), another partition count
 * stops MM2 syncing the topic (KAFKA-9981), shorter retention deletes copies the source still holds,
 * a smaller max.message.bytes fails MM2's producer on large records (RecordTooLargeException), a
 * lower min.insync.replicas or unclean election on the target may lose acknowledged copies.
 */
export function compareTopicSettings(source: TopicState, target: TopicState): SettingDiff[] {
  const diffs: SettingDiff[] = [
    { setting: "partitions", source: String(source.partitions.length), target: String(target.partitions.length), weaker: source.partitions.length !== target.partitions.length },
  ];
  const from = source.configs;
  const to = target.configs;
  const known = from !== null && to !== null;
  const policy = (v: string) => v.split(",").map((p) => p.trim()).sort().join(",");
  diffs.push({ setting: "cleanup.policy", source: from?.cleanupPolicy ?? null, target: to?.cleanupPolicy ?? null, weaker: known && policy(from.cleanupPolicy) !== policy(to.cleanupPolicy) });
  diffs.push(compareLimit("retention.ms", from?.retentionMs, to?.retentionMs));
  diffs.push(compareLimit("retention.bytes", from?.retentionBytes, to?.retentionBytes));
  const maxFrom = from?.maxMessageBytes ?? null;
  const maxTo = to?.maxMessageBytes ?? null;
  diffs.push({ setting: "max.message.bytes", source: maxFrom === null ? null : String(maxFrom), target: maxTo === null ? null : String(maxTo), weaker: maxFrom !== null && maxTo !== null && maxTo < maxFrom });
  const isrFrom = from?.minInsyncReplicas ?? null;
  const isrTo = to?.minInsyncReplicas ?? null;
  diffs.push({ setting: "min.insync.replicas", source: isrFrom === null ? null : String(isrFrom), target: isrTo === null ? null : String(isrTo), weaker: isrFrom !== null && isrTo !== null && isrTo < isrFrom });
  diffs.push({
    setting: "unclean.leader.election.enable",
    source: from === null ? null : String(from.uncleanLeaderElection),
    target: to === null ? null : String(to.uncleanLeaderElection),
    weaker: known && to.uncleanLeaderElection && !from.uncleanLeaderElection,
  });
  return diffs;
}

/** A retention limit; Kafka's -1 (null here) keeps forever. Undefined: configs not read. */
function compareLimit(setting: "retention.ms" | "retention.bytes", source: bigint | null | undefined, target: bigint | null | undefined): SettingDiff {
  const text = (v: bigint | null | undefined) => (v === undefined ? null : v === null ? "-1" : v.toString());
  const weaker = source !== undefined && target !== undefined && target !== null && (source === null || target < source);
  return { setting, source: text(source), target: text(target), weaker };
}
