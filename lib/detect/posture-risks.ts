import { readFlowColumns } from "@/lib/collector/flow-columns";
import type { ClusterSnapshot, Flow, Snapshot } from "@/lib/collector/types";
import { countOf, summarizeNames } from "./snapshot-views";
import { listWeakerTopicDrifts, type SettingDiff, type TopicDrift } from "./topic-drift";
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
  const replicated = listReplicatedTopics(snapshot);
  for (const cluster of snapshot.clusters) {
    const { single, minIsrOne } = listWeakTopics(cluster, replicated.get(cluster.alias));
    if (single.length > 0) findings.push(createSingleReplicaRisk(cluster, single, now));
    if (minIsrOne.length > 0) findings.push(createMinInsyncOneRisk(cluster, minIsrOne, now));
  }
  for (const flow of snapshot.flows) {
    for (const drift of listWeakerTopicDrifts(snapshot, flow)) findings.push(...judgeDrift(flow, drift, now));
  }
  return findings;
}

/**
 * Per cluster alias, the topics MM2 flows copy from it (source topics) or into it (remote topics); not heartbeats
 * topics (`heartbeats`, `<alias><separator>heartbeats`), which carry MM2's liveness signal, no data.
 */
function listReplicatedTopics(snapshot: Snapshot): Map<string, Set<string>> {
  const byCluster = new Map<string, Set<string>>();
  const add = (alias: string, topic: string) => {
    let topics = byCluster.get(alias);
    if (topics === undefined) byCluster.set(alias, (topics = new Set()));
    topics.add(topic);
  };
  for (const flow of snapshot.flows) {
    const heartbeats = `${flow.replicationPolicy.separator}heartbeats`;
    // A topic's partitions are listed together: the first of each run adds both names (flow-columns.ts).
    for (const at of readFlowColumns(flow.id, flow.partitions).topicRunStarts) {
      const p = flow.partitions[at]!;
      if (p.topic === "heartbeats" || p.topic.endsWith(heartbeats)) continue;
      add(flow.source, p.topic);
      add(flow.target, p.targetTopic);
    }
  }
  return byCluster;
}

/**
 * The replicated topics of a cluster (`names`) in its order: those with a partition that has one replica, and those
 * with min.insync.replicas=1 and a partition with more than one. One pass over each topic's partitions, which stops
 * once what is asked is known (every partition of a healthy topic is read: any one may have a single replica).
 */
function listWeakTopics(
  cluster: ClusterSnapshot,
  names: ReadonlySet<string> | undefined,
): { single: string[]; minIsrOne: string[] } {
  const single: string[] = [];
  const minIsrOne: string[] = [];
  if (names === undefined) return { single, minIsrOne };
  for (const t of cluster.topics) {
    if (t.internal || !names.has(t.name)) continue;
    let one = false;
    let more = false;
    // A partition with more than one replica matters only where min.insync.replicas=1.
    const minIsr = t.configs?.minInsyncReplicas === 1;
    for (const p of t.partitions) {
      const replicas = p.replicas.length;
      if (replicas === 1) one = true;
      else if (replicas > 1) more = true;
      if (one && (more || !minIsr)) break;
    }
    if (one) single.push(t.name);
    if (more && minIsr) minIsrOne.push(t.name);
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
