/**
 * Fixture builders for collector tests: hand-built cluster snapshots, flow definitions and
 * readings, each with overrides. Defaults describe the east->west flow of the sandbox.
 */
import type { FlowReadings } from "@/lib/collector/flow-builder";
import type { FlowDefinition } from "@/lib/collector/flow-discovery";
import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import { createDefaultReplicationPolicy, defaultCheckpointTiming, defaultGroupsExclude, readTopicFilter, type SyncPoint } from "@/lib/mm2";

/** 2025-01-15 03:00:00 UTC. */
export const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);

/** Partition 0 of `orders`, leader 1, offsets 0..1000. */
export function makePartition(overrides: Partial<PartitionState> = {}): PartitionState {
  return {
    topic: "orders",
    partition: 0,
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

/** A topic with the given partitions (default: one partition 0 via makePartition); `topic` is copied into each. */
export function makeTopic(name: string, partitions: Partial<PartitionState>[] = [{}], overrides: Partial<TopicState> = {}): TopicState {
  return {
    name,
    topicId: `id-${name}`,
    internal: name.startsWith("__"),
    partitions: partitions.map((p, i) => makePartition({ partition: i, ...p, topic: name })),
    configs: null,
    ...overrides,
  };
}

export function makeCluster(alias: string, topics: TopicState[] = [], overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    alias,
    bootstrap: [`${alias}:9092`],
    reachable: true,
    error: null,
    dataAt: T0,
    stale: false,
    brokers: [{ nodeId: 1, host: alias, port: 9092, rack: null }],
    controllerId: 1,
    topics,
    groups: [],
    uncleanLeaderElectionDefault: false,
    ...overrides,
  };
}

/** The east->west flow as discovered from Connect, DefaultReplicationPolicy. */
export function makeDefinition(overrides: Partial<FlowDefinition> = {}): FlowDefinition {
  return {
    id: "east->west",
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    connectCluster: "connect-1",
    connectors: { source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" },
    policy: createDefaultReplicationPolicy(),
    topicsFilter: ".*",
    topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({}) }],
    groupsFilter: ".*",
    groupsExclude: defaultGroupsExclude,
    checkpointTiming: defaultCheckpointTiming,
    warnings: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
    checkpointsTopic: "east.checkpoints.internal",
    heartbeatsTopic: "east.heartbeats",
    positionsTopic: null,
    configReadError: null,
    ...overrides,
  };
}

/** Readings with nothing read unless given; `positions` keys are `topic/partition`. */
export function makeReadings(overrides: Partial<FlowReadings> = {}): FlowReadings {
  return {
    positions: null,
    syncHistory: new Map<string, readonly SyncPoint[]>(),
    checkpoints: [],
    latestHeartbeat: null,
    failures: { positionsError: null, syncsError: null },
    errors: [],
    ...overrides,
  };
}
