import type { ClusterSnapshot, Flow, Snapshot } from "@/lib/collector/types";
import { readClusterColumns, readTopicPositions, TopicFlag } from "./cluster-columns";
import { countOf, summarizeNames } from "./snapshot-views";
import { listWeakerTopicDrifts, type SettingDiff, type TopicDrift } from "./topic-drift";
import { locateTopicRuns, readTopicRuns } from "./topic-runs";
import { FindingType, Severity, type Finding } from "./types";

/**
 * Posture risks: settings that stand until someone changes them, for the Risks page (never alerts).
 * A cluster that did not answer this cycle carries its last topics and configs (the collector keeps
 * them), so a risk neither appears nor goes away because a cluster could not be read.
 *
 * LOGIC
 * - REPLICATION_FACTOR_ONE (warning, `REPLICATION_FACTOR_ONE|<cluster>`): replicated topics (a flow's
 *   source topics on the source, their remote topics on the target; heartbeats left out) with a partition that has one
 *   replica: losing that broker's disk loses the partition.
 * - MIN_INSYNC_REPLICAS_ONE (info, `MIN_INSYNC_REPLICAS_ONE|<cluster>`): replicated topics with
 *   more than one replica and min.insync.replicas=1: an acks=all write is acknowledged by the leader
 *   alone and lost with it (with one replica the risk above already says so).
 * - TARGET_RETENTION_SHORTER (warning, `TARGET_RETENTION_SHORTER|<flow>|<topic>`): the target topic's
 *   retention.ms or retention.bytes is shorter than the source's: after a failover the copy holds less
 *   history than consumers could re-read at the source.
 * - TOPIC_DRIFT (warning, `TOPIC_DRIFT|<flow>|<topic>`): another partition count, cleanup.policy,
 *   a smaller max.message.bytes, a lower min.insync.replicas or unclean election on the target only
 *   (topic-drift.ts). Settings not read yet on either side are not judged.
 */
export function detectPostureRisks(snapshot: Snapshot, now: number): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of snapshot.clusters) {
    const { single, minIsrOne } = listWeakTopics(cluster, markReplicatedTopics(snapshot, cluster));
    if (single.length > 0) findings.push(createSingleReplicaRisk(cluster, single, now));
    if (minIsrOne.length > 0) findings.push(createMinInsyncOneRisk(cluster, minIsrOne, now));
  }
  for (const flow of snapshot.flows) {
    for (const drift of listWeakerTopicDrifts(snapshot, flow)) findings.push(...judgeDrift(flow, drift, now));
  }
  return findings;
}

/**
 * Per position in the cluster's topics, 1 for a topic MM2 flows copy from it (source topics) or into it (remote
 * topics), by name (every topic of a repeated name); not heartbeats topics (`heartbeats`,
 * `<alias><separator>heartbeats`), which carry MM2's liveness signal, no data. Null when no flow copies from or into
 * the cluster's alias.
 */
function markReplicatedTopics(snapshot: Snapshot, cluster: ClusterSnapshot): Uint8Array | null {
  let byName: Uint8Array | null = null;
  const positions = readTopicPositions(cluster);
  const { firstOfName } = positions;
  for (const flow of snapshot.flows) {
    const source = flow.source === cluster.alias;
    const target = flow.target === cluster.alias;
    if (!source && !target) continue;
    byName ??= new Uint8Array(firstOfName.length);
    const heartbeats = `${flow.replicationPolicy.separator}heartbeats`;
    // A topic's partitions are listed together: each run's topics, located in the cluster once (topic-runs.ts).
    const { topics } = readTopicRuns(flow);
    const from = source ? locateTopicRuns(flow, positions, "source") : null;
    const to = target ? locateTopicRuns(flow, positions, "target") : null;
    for (let r = 0; r < topics.length; r++) {
      const topic = topics[r]!;
      if (topic === "heartbeats" || topic.endsWith(heartbeats)) continue;
      if (from !== null && from[r]! >= 0) byName[from[r]!] = 1;
      if (to !== null && to[r]! >= 0) byName[to[r]!] = 1;
    }
  }
  // A repeated name was marked at its first topic, which comes before the others.
  if (byName === null) return null;
  for (let i = 0; i < firstOfName.length; i++) if (firstOfName[i] !== i) byName[i] = byName[firstOfName[i]!]!;
  return byName;
}

/**
 * The replicated topics of a cluster (`replicated`, by position) in its order: those with a partition that has one
 * replica, and those with min.insync.replicas=1 and a partition with more than one (the cluster's columns say which:
 * its partitions are not read here).
 */
function listWeakTopics(cluster: ClusterSnapshot, replicated: Uint8Array | null): { single: string[]; minIsrOne: string[] } {
  const single: string[] = [];
  const minIsrOne: string[] = [];
  if (replicated === null) return { single, minIsrOne };
  const { topicFlags } = readClusterColumns(cluster);
  for (let i = 0; i < cluster.topics.length; i++) {
    const t = cluster.topics[i]!;
    if (replicated[i] === 0 || t.internal) continue;
    const flags = topicFlags[i]!;
    // A partition with more than one replica matters only where min.insync.replicas=1.
    if ((flags & TopicFlag.SINGLE_REPLICA) !== 0) single.push(t.name);
    if ((flags & TopicFlag.MULTI_REPLICA) !== 0 && t.configs?.minInsyncReplicas === 1) minIsrOne.push(t.name);
  }
  return { single, minIsrOne };
}

function createSingleReplicaRisk(cluster: ClusterSnapshot, topics: readonly string[], now: number): Finding {
  return {
    key: `${FindingType.REPLICATION_FACTOR_ONE}|${cluster.alias}`,
    type: FindingType.REPLICATION_FACTOR_ONE,
    severity: Severity.WARNING,
    cluster: cluster.alias,
    summary: `${cluster.alias}: ${countOf(topics.length, "topic")} with a single replica (${summarizeNames(topics)}); losing that broker loses their records`,
    evidence: { topics: topics.length, topicNames: topics.join(",") },
    observedAt: now,
  };
}

function createMinInsyncOneRisk(cluster: ClusterSnapshot, topics: readonly string[], now: number): Finding {
  return {
    key: `${FindingType.MIN_INSYNC_REPLICAS_ONE}|${cluster.alias}`,
    type: FindingType.MIN_INSYNC_REPLICAS_ONE,
    severity: Severity.INFO,
    cluster: cluster.alias,
    summary:
      `${cluster.alias}: ${countOf(topics.length, "replicated topic")} with min.insync.replicas=1 (${summarizeNames(topics)}); ` +
      "an acks=all write is acknowledged by the leader alone",
    evidence: { topics: topics.length, topicNames: topics.join(",") },
    observedAt: now,
  };
}

const retentionSettings: ReadonlySet<SettingDiff["setting"]> = new Set(["retention.ms", "retention.bytes"]);

function judgeDrift(flow: Flow, drift: TopicDrift, now: number): Finding[] {
  const weaker = drift.settings.filter((s) => s.weaker);
  if (weaker.length === 0) return [];
  const retention = weaker.filter((s) => retentionSettings.has(s.setting));
  const other = weaker.filter((s) => !retentionSettings.has(s.setting));
  const findings: Finding[] = [];
  const describe = (s: SettingDiff) => `${s.setting} ${s.target ?? "?"} (source ${s.source ?? "?"})`;
  const make = (type: typeof FindingType.TARGET_RETENTION_SHORTER | typeof FindingType.TOPIC_DRIFT, settings: SettingDiff[], what: string): Finding => ({
    key: `${type}|${flow.id}|${drift.topic}`,
    type,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.target,
    topic: drift.topic,
    summary: `${drift.targetTopic} at ${flow.target} ${what}: ${settings.map(describe).join(", ")}`,
    evidence: {
      targetTopic: drift.targetTopic,
      settings: settings.map((s) => s.setting).join(","),
      ...Object.fromEntries(settings.flatMap((s) => [[`source:${s.setting}`, s.source], [`target:${s.setting}`, s.target]])),
    },
    observedAt: now,
  });
  if (retention.length > 0) findings.push(make(FindingType.TARGET_RETENTION_SHORTER, retention, `keeps less than ${drift.topic} at ${flow.source}`));
  if (other.length > 0) findings.push(make(FindingType.TOPIC_DRIFT, other, `differs from ${drift.topic} at ${flow.source}`));
  return findings;
}
