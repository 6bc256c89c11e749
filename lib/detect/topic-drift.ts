import { countTopicPartitions } from "@/lib/collector/cluster-partition-rows";
import type { Flow, Snapshot, TopicConfigs, TopicState } from "@/lib/collector/types";
import { readTopicPositions } from "./cluster-columns";
import { findCluster } from "./snapshot-views";
import { locateTopicRuns, readTopicRuns } from "./topic-runs";

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
  settings: readonly SettingDiff[];
}

/**
 * Source vs target of every replicated topic of a flow that exists on both sides (a topic missing on
 * the target is coverage, not drift). Configs not read yet on either side compare as unknown (never
 * weaker): only the partition count is compared then.
 */
export function compareFlowTopics(snapshot: Snapshot, flow: Flow): TopicDrift[] {
  return listTopicDrifts(snapshot, flow, false);
}

/** compareFlowTopics's drifts with a weaker setting: the others, nearly every topic, make no object. */
export function listWeakerTopicDrifts(snapshot: Snapshot, flow: Flow): TopicDrift[] {
  return listTopicDrifts(snapshot, flow, true);
}

function listTopicDrifts(snapshot: Snapshot, flow: Flow, weakerOnly: boolean): TopicDrift[] {
  const source = findCluster(snapshot, flow.source);
  const target = findCluster(snapshot, flow.target);
  if (source === undefined || target === undefined) return [];
  const drifts: TopicDrift[] = [];
  // A topic's partitions are listed together: each topic is judged at the first of its runs (topic-runs.ts).
  const { topics, targetTopics, repeated } = readTopicRuns(flow);
  const from = locateTopicRuns(flow, readTopicPositions(source), "source");
  const to = locateTopicRuns(flow, readTopicPositions(target), "target");
  for (let r = 0; r < topics.length; r++) {
    if (repeated[r] === 1 || from[r]! < 0 || to[r]! < 0) continue;
    const settings = compareSettingsOnce(source.topics[from[r]!]!, target.topics[to[r]!]!);
    if (weakerOnly && !settings.some((s) => s.weaker)) continue;
    drifts.push({ topic: topics[r]!, targetTopic: targetTopics[r]!, settings });
  }
  return drifts;
}

/**
 * compareTopicSettings, kept per pair of configs objects and partition counts (all it reads). The collector keeps
 * a topic's configs as the same object between config reads, and snapshots are never changed (isCompacted relies
 * on that too): a cycle no longer builds seven setting rows per replicated topic to find no drift.
 */
const settingsByConfigs = new WeakMap<TopicConfigs, WeakMap<TopicConfigs, Map<number, readonly SettingDiff[]>>>();

function compareSettingsOnce(source: TopicState, target: TopicState): readonly SettingDiff[] {
  const from = source.configs;
  const to = target.configs;
  if (from === null || to === null) return compareTopicSettings(source, target);
  let byTarget = settingsByConfigs.get(from);
  if (byTarget === undefined) settingsByConfigs.set(from, (byTarget = new WeakMap()));
  let byCounts = byTarget.get(to);
  if (byCounts === undefined) byTarget.set(to, (byCounts = new Map()));
  // Both counts in one number: partition counts stay far below 2^26.
  const counts = countTopicPartitions(source) * 2 ** 26 + countTopicPartitions(target);
  let settings = byCounts.get(counts);
  if (settings === undefined) byCounts.set(counts, (settings = compareTopicSettings(source, target)));
  return settings;
}

/**
 * Compares the settings that decide whether records survive on the target (issue 14): a different
 * cleanup.policy deletes or compacts what the source keeps (KAFKA-12254), another partition count
 * stops MM2 syncing the topic (KAFKA-9981), shorter retention deletes copies the source still holds,
 * a smaller max.message.bytes fails MM2's producer on large records (RecordTooLargeException), a
 * lower min.insync.replicas or unclean election on the target may lose acknowledged copies.
 */
export function compareTopicSettings(source: TopicState, target: TopicState): SettingDiff[] {
  const sourceCount = countTopicPartitions(source);
  const targetCount = countTopicPartitions(target);
  const diffs: SettingDiff[] = [
    { setting: "partitions", source: String(sourceCount), target: String(targetCount), weaker: sourceCount !== targetCount },
  ];
  const from = source.configs;
  const to = target.configs;
  const known = from !== null && to !== null;
  diffs.push({ setting: "cleanup.policy", source: from?.cleanupPolicy ?? null, target: to?.cleanupPolicy ?? null, weaker: known && sortPolicy(from.cleanupPolicy) !== sortPolicy(to.cleanupPolicy) });
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

/** cleanup.policy's values in one order (`compact,delete` and `delete, compact` are the same policy). */
function sortPolicy(policy: string): string {
  return policy.split(",").map((p) => p.trim()).sort().join(",");
}

/** A retention limit; Kafka's -1 (null here) keeps forever. Undefined: configs not read. */
function compareLimit(setting: "retention.ms" | "retention.bytes", source: bigint | null | undefined, target: bigint | null | undefined): SettingDiff {
  const text = (v: bigint | null | undefined) => (v === undefined ? null : v === null ? "-1" : v.toString());
  const weaker = source !== undefined && target !== undefined && target !== null && (source === null || target < source);
  return { setting, source: text(source), target: text(target), weaker };
}
