import { findConnectCluster, listConnectClusters } from "@/lib/collector/connector-clusters";
import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import type { Connector } from "@/lib/connect/types";

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
  /** How MM2 runs, in words: "MM2: Connect cluster <name>" or "MM2: dedicated mode (connect-mirror-maker)". */
  mode: string;
  connectors: Flow["connectors"];
  /** MM2's connectors by name: from Connect's config, or (dedicated mode) from its status topic. */
  connectorNames: string[];
  /** Whether `tasks` says what runs: Connect mode, or a complete read of the dedicated-mode status topic. */
  taskStatesKnown: boolean;
  /**
   * Dedicated mode: MirrorSourceConnector's own status is not RUNNING. A graceful stop writes
   * UNASSIGNED for it and for its task, but the task's carries the generation of its RUNNING
   * status, which Connect's reader (and Gapwatch's) ignores as stale: the task still shows RUNNING.
   */
  sourceNotRunning: boolean;
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
  /** MM2 settings that change what positions, losses and translation mean; empty with MM2's defaults. */
  settingNotes: SettingNote[];
}

/** One MirrorSourceConnector setting that changes what the flow's figures mean, in words. */
export interface SettingNote {
  /** The connector setting, e.g. `emit.offset-syncs.enabled`. */
  setting: string;
  value: string;
  /** What it changes, for the operator: e.g. "offset translation off by MM2's configuration". */
  meaning: string;
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
  /** The largest `lagSeconds` among the topic's partitions whose age is known; null when none is. */
  lagSeconds: number | null;
}

/** Flows with totals and the states of their Connect tasks. */
export function listFlowSummaries(snapshot: Snapshot): FlowSummary[] {
  return snapshot.flows.map((f) => summarizeFlow(snapshot, f));
}

export function summarizeFlow(snapshot: Snapshot, f: Flow): FlowSummary {
  const names = [...f.connectors.sources, f.connectors.checkpoint, f.connectors.heartbeat].filter((n): n is string => n !== null);
  const clusters = listConnectClusters(f.connectors);
  const onConnect = snapshot.connect.filter((c) => clusters.includes(c.name)).flatMap((c) => c.connectors.filter((k) => findConnectCluster(f.connectors, k.name) === c.name));
  const connectors = f.dedicatedStatus?.connectors ?? onConnect.filter((c) => names.includes(c.name));
  const tasks: Record<string, number> = {};
  for (const connector of connectors) {
    for (const t of connector.tasks) tasks[t.state] = (tasks[t.state] ?? 0) + 1;
  }
  return {
    id: f.id,
    source: f.source,
    target: f.target,
    discoveredFrom: f.discoveredFrom,
    mode: f.discoveredFrom === "connect"
      ? `MM2: Connect cluster ${listConnectClusters(f.connectors).join(", ") || "?"}`
      : "MM2: dedicated mode (connect-mirror-maker)",
    connectors: f.connectors,
    connectorNames: f.dedicatedStatus ? connectors.map((c) => c.name) : names,
    taskStatesKnown: f.discoveredFrom === "connect" || (f.dedicatedStatus !== undefined && f.dedicatedStatus.error === null),
    sourceNotRunning: f.dedicatedStatus?.error === null && isDedicatedSourceStopped(f.dedicatedStatus.connectors),
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
    settingNotes: describeSettingNotes(f),
  };
}

/**
 * The flow's MM2 settings that differ from MM2's defaults in a way that changes what Gapwatch shows. In a flow split
 * over several source connectors each has its own: a setting only some of them have names them.
 */
export function describeSettingNotes(f: Flow): SettingNote[] {
  const byConnector = f.sourceSettingsByConnector === undefined ? null : Object.entries(f.sourceSettingsByConnector);
  const all = byConnector ?? (f.sourceTaskSettings === undefined ? [] : [["", f.sourceTaskSettings] as const]);
  if (all.length === 0) return [];
  const scope = (names: string[]) => (byConnector === null || names.length === all.length ? "" : `source connector ${names.join(", ")} only: `);
  const notes: SettingNote[] = [];
  const syncsOff = all.filter(([, settings]) => !settings.offsetSyncsEnabled).map(([name]) => name);
  if (syncsOff.length > 0) {
    notes.push({
      setting: "emit.offset-syncs.enabled",
      value: "false",
      meaning:
        `${scope(syncsOff)}offset translation off by MM2's configuration: MM2 writes no offset syncs and runs no checkpoint connector, ` +
        "so consumer groups have no translated offsets on the target (re-read figures unavailable); MM2's positions " +
        "come from Connect's offset flushes alone",
    });
  }
  const latest = all.filter(([, settings]) => settings.autoOffsetReset === "latest").map(([name]) => name);
  if (latest.length > 0) {
    notes.push({
      setting: "consumer.auto.offset.reset",
      value: "latest",
      meaning:
        `${scope(latest)}MM2 starts new partitions, and recovers from a position below the log start, at the log end: ` +
        "records it jumps over are skipped on purpose",
    });
  }
  return notes;
}

function isDedicatedSourceStopped(connectors: readonly Connector[]): boolean {
  return connectors.some((c) => c.name === "MirrorSourceConnector" && c.state !== "RUNNING");
}

/** Per-topic rows of a flow (sums over partitions), as of the snapshot's time `takenAt`. */
export function listTopicRows(f: Flow, takenAt: number): TopicRow[] {
  const byTopic = new Map<string, FlowPartition[]>();
  for (const p of f.partitions) {
    const list = byTopic.get(p.topic);
    if (list) list.push(p);
    else byTopic.set(p.topic, [p]);
  }
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
    lagSeconds: parts.reduce<number | null>((max, p) => {
      const age = measureLagSeconds(p, takenAt);
      return age === null ? max : Math.max(max ?? 0, age);
    }, null),
  }));
}

/** Seconds the oldest unreplicated record has waited at the snapshot's time: 0 without lag, null when unknown. */
function measureLagSeconds(p: Pick<FlowPartition, "lag" | "oldestUnreplicatedTimestamp">, takenAt: number): number | null {
  if (p.lag === null) return null;
  if (p.lag === 0n) return 0;
  return p.oldestUnreplicatedTimestamp === null ? null : Math.max(0, takenAt - p.oldestUnreplicatedTimestamp) / 1000;
}

/** The per-partition rows of the API: the fields operators compare side by side, as of the snapshot's time `takenAt`. */
export function listPartitionRows(f: Flow, takenAt: number) {
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
    /** Age in seconds of the oldest record not yet copied: 0 without lag, null when unknown. */
    lagSeconds: measureLagSeconds(p, takenAt),
  }));
}

/** How many partitions are unknown, why, and how old their last good data is; null when none is. */
export function describePartialData(partitions: readonly FlowPartition[], takenAt: number, shown = 3): PartialData | null {
  const unknown = partitions.flatMap((p) => (p.unknown === null ? [] : [p.unknown]));
  if (unknown.length === 0) return null;
  const reasons = [...new Set(unknown.map((u) => u.reason))];
  const neverRead = unknown.some((u) => u.dataAt === null);
  // reduce, not Math.min(...): a whole cluster down at 100,000 partitions would overflow the argument list.
  const oldest = unknown.reduce((min, u) => Math.min(min, u.dataAt ?? takenAt), Number.POSITIVE_INFINITY);
  return {
    unknownPartitions: unknown.length,
    reasons: reasons.slice(0, shown),
    moreReasons: Math.max(0, reasons.length - shown),
    dataAgeMs: neverRead ? null : takenAt - oldest,
  };
}
