/**
 * Fixture builders for detector tests: hand-built snapshots with overrides, and a runner that
 * threads `previous` and the detector memory through a sequence of cycles like the collector does.
 */
import {
  flowPartitionKey,
  type ClusterSnapshot,
  type CollectorHistory,
  type ConnectClusterSnapshot,
  type Flow,
  type OffsetSyncPoint,
  type PartitionState,
  type Snapshot,
  type TopicConfigs,
  type TopicState,
  type FlowPartition,
} from "@/lib/collector/types";
import type { Connector, TaskStatus } from "@/lib/connect/types";
import { createDetectorMemory } from "@/lib/detect/memory";
import { runDetectors } from "@/lib/detect/engine";
import { defaultThresholds, type Thresholds } from "@/lib/config/thresholds";
import type { DetectorMemory, DetectorOutput, Finding } from "@/lib/detect/types";

/** 2025-01-15 03:00:00 UTC: cycles are T0 + n × 10 s. */
export const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
export const FLOW = "east->west";

/** A flow partition of `orders`/2; lag and the committed position follow log end and position unless given. */
export function makeFlowPartition(overrides: Partial<FlowPartition> = {}): FlowPartition {
  const base: FlowPartition = {
    topic: "orders",
    partition: 2,
    targetTopic: "east.orders",
    sourceConnector: "mm2-source",
    sourceTopicId: "id-1",
    sourceLogStart: 0n,
    sourceLogEnd: 1000n,
    sourceLeaderEpoch: 0,
    mm2Position: 1000n,
    committedPosition: null,
    positionSource: null,
    targetLogStart: 0n,
    targetLogEnd: 1000n,
    lag: null,
    offsetLag: null,
    lagBasis: "offsets",
    transactionMarkersSeen: false,
    targetDensityIssue: null,
    latestSync: { upstream: 999n, downstream: 999n },
    oldestUnreplicatedTimestamp: null,
    unknown: null,
    ...overrides,
  };
  const lag = base.sourceLogEnd !== null && base.mm2Position !== null ? base.sourceLogEnd - base.mm2Position : null;
  return {
    ...base,
    // Unless told otherwise, the position came from Connect's committed offsets.
    committedPosition: "committedPosition" in overrides ? (overrides.committedPosition ?? null) : base.mm2Position,
    positionSource: overrides.positionSource ?? (base.mm2Position === null ? null : "committed"),
    lag: "lag" in overrides ? (overrides.lag ?? null) : lag !== null && lag < 0n ? 0n : lag,
    offsetLag: "offsetLag" in overrides ? (overrides.offsetLag ?? null) : lag !== null && lag < 0n ? 0n : lag,
  };
}

/** The east->west flow with the given partitions (default one `orders`/2). */
export function makeFlow(overrides: Partial<Flow> = {}): Flow {
  const partitions = overrides.partitions ?? [makeFlowPartition()];
  return {
    id: FLOW,
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" },
    replicationPolicy: { kind: "default", separator: "." },
    topicsFilter: ".*",
    groupsFilter: ".*",
    groupsExclude: "console-consumer-.*, connect-.*, __.*",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
    warnings: [],
    excludedTopics: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
    checkpointsTopic: "east.checkpoints.internal",
    checkpoints: [],
    heartbeat: { latestTimestamp: null, latencyMs: null },
    totals: {
      topics: 1,
      partitions: partitions.length,
      lag: partitions.reduce((sum, p) => sum + (p.lag ?? 0n), 0n),
      unknownPositions: partitions.filter((p) => p.mm2Position === null).length,
    },
    errors: [],
    ...overrides,
    partitions,
  };
}

/** A partition of a cluster topic: leader 1, replicas = ISR = [1, 2, 3]. */
export function makePartitionState(overrides: Partial<PartitionState> = {}): PartitionState {
  return {
    topic: "orders",
    partition: 2,
    leader: 1,
    leaderEpoch: 0,
    replicas: [1, 2, 3],
    isr: [1, 2, 3],
    offlineReplicas: [],
    logStart: 0n,
    logEnd: 1000n,
    error: null,
    ...overrides,
  };
}

/** Topic configs: 7 days time retention, no size limit, delete policy. */
export function makeTopicConfigs(overrides: Partial<TopicConfigs> = {}): TopicConfigs {
  return { retentionMs: 604_800_000n, retentionBytes: null, cleanupPolicy: "delete", uncleanLeaderElection: false, minInsyncReplicas: 1, ...overrides };
}

/** A topic; its partitions take the topic's name. */
export function makeTopic(name: string, partitions: Partial<PartitionState>[] = [{}], overrides: Partial<TopicState> = {}): TopicState {
  return {
    name,
    topicId: `id-${name}`,
    internal: false,
    partitions: partitions.map((p) => makePartitionState({ ...p, topic: name })),
    configs: makeTopicConfigs(),
    ...overrides,
  };
}

/** A fresh (reachable, not stale) cluster. */
export function makeCluster(alias: string, overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    alias,
    bootstrap: [`${alias}:9092`],
    reachable: true,
    error: null,
    dataAt: T0,
    stale: false,
    brokers: [{ nodeId: 1, host: alias, port: 9092, rack: null }],
    controllerId: 1,
    topics: [],
    groups: [],
    uncleanLeaderElectionDefault: false,
    ...overrides,
  };
}

/** A cluster that did not answer this cycle: its data is carried over from an earlier one. */
export function makeStaleCluster(alias: string, overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return makeCluster(alias, { reachable: false, stale: true, error: "connect ECONNREFUSED", ...overrides });
}

/** A task status. */
export function makeTask(id: number, overrides: Partial<TaskStatus> = {}): TaskStatus {
  return { id, state: "RUNNING", workerId: "10.0.0.5:8083", trace: null, rootCause: null, ...overrides };
}

/** An MM2 source connector `mm2-source` with one RUNNING task. */
export function makeConnector(overrides: Partial<Connector> = {}): Connector {
  return {
    name: "mm2-source",
    type: "source",
    connectorClass: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    state: "RUNNING",
    workerId: "10.0.0.5:8083",
    trace: null,
    rootCause: null,
    tasks: [makeTask(0)],
    config: {},
    ...overrides,
  };
}

/** A reachable Connect cluster `connect-1`. */
export function makeConnect(connectors: Connector[] = [makeConnector()], overrides: Partial<ConnectClusterSnapshot> = {}): ConnectClusterSnapshot {
  return { name: "connect-1", url: "http://connect-1:8083", reachable: true, error: null, dataAt: T0, connectors, ...overrides };
}

/** Snapshot overrides, plus shortcuts for the default east->west flow. */
export interface SnapshotOverrides extends Partial<Snapshot> {
  /** Partitions of the default flow (ignored when `flows` is given). */
  partitions?: FlowPartition[];
  /** Configs of the source topic `orders` at east; null = not read yet. */
  sourceConfigs?: TopicConfigs | null;
  /** Overrides of the east (source) and west (target) clusters. */
  east?: Partial<ClusterSnapshot>;
  west?: Partial<ClusterSnapshot>;
}

/** A snapshot of cycle `cycle` (default 1) taken at T0 + (cycle − 1) × 10 s, with east->west. */
export function makeSnapshot(overrides: SnapshotOverrides = {}): Snapshot {
  const { partitions, sourceConfigs, east, west, ...rest } = overrides;
  const cycle = rest.cycle ?? 1;
  const orders = makeTopic("orders", [{ partition: 2 }], { topicId: "id-1", configs: sourceConfigs === undefined ? makeTopicConfigs() : sourceConfigs });
  return {
    cycle,
    takenAt: T0 + (cycle - 1) * 10_000,
    durationMs: 250,
    clusters: [makeCluster("east", { topics: [orders], ...east }), makeCluster("west", west)],
    connect: [makeConnect()],
    flows: [makeFlow(partitions === undefined ? {} : { partitions })],
    malformedRecords: {},
    ...rest,
  };
}

/** Offset-sync history of `orders`/2 of east->west, from [upstream, downstream] pairs. */
export function makeHistory(syncs: [number, number][], topic = "orders", partition = 2): CollectorHistory {
  const points: OffsetSyncPoint[] = syncs.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
  return { offsetSyncs: new Map([[flowPartitionKey(FLOW, topic, partition), points]]) };
}

/** One cycle for `runCycles`; `now` defaults to the snapshot's takenAt. */
export interface Cycle {
  snapshot: Snapshot;
  history?: CollectorHistory;
  now?: number;
}

/** Runs the detectors over consecutive cycles like the collector: previous snapshot and memory threaded. */
export function runCycles(cycles: Cycle[], thresholds: Thresholds = defaultThresholds, memory: DetectorMemory = createDetectorMemory()): DetectorOutput[] {
  const outputs: DetectorOutput[] = [];
  let previous: Snapshot | null = null;
  let current = memory;
  for (const cycle of cycles) {
    const output = runDetectors({
      previous,
      current: cycle.snapshot,
      history: cycle.history ?? { offsetSyncs: new Map() },
      memory: current,
      now: cycle.now ?? cycle.snapshot.takenAt,
      thresholds,
    });
    outputs.push(output);
    previous = cycle.snapshot;
    current = output.memory;
  }
  return outputs;
}

/** The findings of one type in an output. */
export function findingsOf(output: DetectorOutput | undefined, type: Finding["type"]): Finding[] {
  return (output?.findings ?? []).filter((f) => f.type === type);
}
