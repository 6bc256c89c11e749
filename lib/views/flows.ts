import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";

/** Why part of a flow's data is unknown this cycle: the flow shows "partial" with the reason. */
export interface PartialData {
  unknownPartitions: number;
  /** The first distinct reasons (what could not be read). */
  reasons: string[];
  /** Distinct reasons beyond those listed. */
  moreReasons: number;
  /** Age at this cycle of the oldest last-good data among them (ms); null when one was never read. */
  dataAgeMs: number | null;
}

export interface FlowSummary {
  id: string;
  source: string;
  target: string;
  discoveredFrom: Flow["discoveredFrom"];
  connectors: Flow["connectors"];
  topics: number;
  partitions: number;
  lag: bigint;
  unknownPositions: number;
  /** Null when every partition was read this cycle. */
  partial: PartialData | null;
  heartbeatLatencyMs: number | null;
  tasks: Record<string, number>;
  errors: string[];
  /** What in MM2's connector configs Gapwatch cannot evaluate exactly (FLOW_CONFIG_WARNING). */
  warnings: Flow["warnings"];
  /** Source topics MM2 once copied and its topic filter now leaves out, with the reason. */
  excludedTopics: Flow["excludedTopics"];
}

export interface TopicRow {
  topic: string;
  targetTopic: string;
  partitions: number;
  sourceLogEnd: bigint;
  targetLogEnd: bigint;
  lag: bigint;
  unknownPositions: number;
  /** Partitions whose data could not be read this cycle. */
  unknownPartitions: number;
  internal: boolean;
}

/** Flows with totals and the states of their Connect tasks. */
export function listFlowSummaries(snapshot: Snapshot): FlowSummary[] {
  return snapshot.flows.map((f) => summarizeFlow(snapshot, f));
}

export function summarizeFlow(snapshot: Snapshot, f: Flow): FlowSummary {
  const names = [...f.connectors.sources, f.connectors.checkpoint, f.connectors.heartbeat].filter((n): n is string => n !== null);
  const connect = snapshot.connect.find((c) => c.name === f.connectors.connectCluster);
  const tasks: Record<string, number> = {};
  for (const connector of connect?.connectors.filter((c) => names.includes(c.name)) ?? []) {
    for (const t of connector.tasks) tasks[t.state] = (tasks[t.state] ?? 0) + 1;
  }
  return {
    id: f.id,
    source: f.source,
    target: f.target,
    discoveredFrom: f.discoveredFrom,
    connectors: f.connectors,
    topics: f.totals.topics,
    partitions: f.totals.partitions,
    lag: f.totals.lag,
    unknownPositions: f.totals.unknownPositions,
    partial: describePartialData(f.partitions, snapshot.takenAt),
    heartbeatLatencyMs: f.heartbeat.latencyMs,
    tasks,
    errors: f.errors,
    warnings: f.warnings,
    excludedTopics: f.excludedTopics,
  };
}

/** Per-topic rows of a flow (sums over partitions). */
export function listTopicRows(f: Flow): TopicRow[] {
  const byTopic = new Map<string, FlowPartition[]>();
  for (const p of f.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
  return [...byTopic].map(([topic, parts]) => ({
    topic,
    targetTopic: parts[0]!.targetTopic,
    partitions: parts.length,
    sourceLogEnd: parts.reduce((s, p) => s + (p.sourceLogEnd ?? 0n), 0n),
    targetLogEnd: parts.reduce((s, p) => s + (p.targetLogEnd ?? 0n), 0n),
    lag: parts.reduce((s, p) => s + (p.lag ?? 0n), 0n),
    unknownPositions: parts.filter((p) => p.lag === null).length,
    unknownPartitions: parts.filter((p) => p.unknown !== null).length,
    internal: topic === "heartbeats" || topic.endsWith(".heartbeats") || topic.endsWith(".internal") || topic.startsWith("__"),
  }));
}

/** The per-partition rows of the API: the fields operators compare side by side. */
export function listPartitionRows(f: Flow) {
  return f.partitions.map((p) => ({
    topic: p.topic,
    partition: p.partition,
    targetTopic: p.targetTopic,
    sourceConnector: p.sourceConnector,
    sourceLogStart: p.sourceLogStart,
    sourceLogEnd: p.sourceLogEnd,
    mm2Position: p.mm2Position,
    committedPosition: p.committedPosition,
    positionSource: p.positionSource,
    targetLogEnd: p.targetLogEnd,
    lag: p.lag,
    offsetLag: p.offsetLag,
    lagBasis: p.lagBasis,
    transactionMarkersSeen: p.transactionMarkersSeen,
    targetDensityIssue: p.targetDensityIssue,
    sourceLeaderEpoch: p.sourceLeaderEpoch,
    sourceTopicId: p.sourceTopicId,
    latestSync: p.latestSync,
    unknown: p.unknown,
  }));
}

/** How many partitions are unknown, why, and how old their last good data is; null when none is. */
export function describePartialData(partitions: readonly FlowPartition[], takenAt: number, shown = 3): PartialData | null {
  const unknown = partitions.flatMap((p) => (p.unknown === null ? [] : [p.unknown]));
  if (unknown.length === 0) return null;
  const reasons = [...new Set(unknown.map((u) => u.reason))];
  const neverRead = unknown.some((u) => u.dataAt === null);
  const oldest = Math.min(...unknown.map((u) => u.dataAt ?? takenAt));
  return {
    unknownPartitions: unknown.length,
    reasons: reasons.slice(0, shown),
    moreReasons: Math.max(0, reasons.length - shown),
    dataAgeMs: neverRead ? null : takenAt - oldest,
  };
}
