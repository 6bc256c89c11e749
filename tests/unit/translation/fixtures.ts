/**
 * Fixture builders for translation tests: a flow with hand-built partitions, checkpoints, groups
 * and sync histories. Defaults describe the sandbox's east->west flow and `orders`.
 */
import { type CheckpointPoint, type ConsumerGroupState, type Flow, type FlowPartition, flowPartitionKey } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import type { RowSample, SampleColumn, TranslationSampleColumns } from "@/lib/translation";

/** 2025-01-15 03:00:00 UTC. */
export const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
export const FLOW = "east->west";

/** A replicated partition of `orders` (source log end 10,000). */
export function makeFlowPartition(overrides: Partial<FlowPartition> = {}): FlowPartition {
  return {
    topic: "orders",
    partition: 0,
    targetTopic: `east.${overrides.topic ?? "orders"}`,
    sourceConnector: "mm2-source",
    sourceTopicId: "id-orders",
    sourceLogStart: 0n,
    sourceLogEnd: 10_000n,
    sourceLeaderEpoch: 0,
    mm2Position: 10_000n,
    committedPosition: 10_000n,
    positionSource: "committed",
    targetLogStart: 0n,
    targetLogEnd: 10_000n,
    lag: 0n,
    offsetLag: 0n,
    lagBasis: "offsets",
    transactionMarkersSeen: false,
    targetDensityIssue: null,
    latestSync: null,
    oldestUnreplicatedTimestamp: null,
    unknown: null,
    ...overrides,
  };
}

/** The east->west flow; partitions default to `orders`/0..3. */
export function makeFlow(overrides: Partial<Flow> = {}): Flow {
  const partitions = overrides.partitions ?? [0, 1, 2, 3].map((partition) => makeFlowPartition({ partition }));
  return {
    id: FLOW,
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    connectors: { connectCluster: "sandbox", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" },
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
    heartbeat: { latestTimestamp: T0, latencyMs: 0 },
    totals: { topics: 1, partitions: partitions.length, lag: 0n, unknownPositions: 0 },
    errors: [],
    ...overrides,
    partitions,
  };
}

/** A consumer group with committed offsets `{ "orders/0": 5000n, … }`. */
export function makeGroup(groupId: string, offsets: Record<string, bigint>, overrides: Partial<ConsumerGroupState> = {}): ConsumerGroupState {
  return {
    groupId,
    state: "Stable",
    protocolType: "consumer", groupType: "classic",
    members: 1,
    offsets: Object.entries(offsets).map(([key, offset]) => {
      const [topic, partition] = key.split("/") as [string, string];
      return { topic, partition: Number(partition), offset, committedLeaderEpoch: -1 };
    }),
    error: null,
    dataAt: null,
    ...overrides,
  };
}

/** A checkpoint of `group` on an upstream partition, emitted `ageMs` before T0. */
export function makeCheckpoint(group: string, topic: string, partition: number, upstream: bigint, downstream: bigint, ageMs = 5_000): CheckpointPoint {
  return { group, topic, partition, upstream, downstream, at: T0 - ageMs };
}

/** Syncs (u, d) from a list of pairs. */
export function syncs(...pairs: [number, number][]): SyncPoint[] {
  return pairs.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
}

/** One-to-one replication with a sync every `step` offsets from 0 up to `last` (downstream = upstream + shift). */
export function steadySyncs(step: number, last: number, shift = 0): SyncPoint[] {
  const out: SyncPoint[] = [];
  for (let u = 0; u <= last; u += step) out.push({ upstream: BigInt(u), downstream: BigInt(u + shift) });
  return out;
}

/** The collector's sync history map for partitions of `orders` (or another topic). */
export function makeHistory(byPartition: Record<number, SyncPoint[]>, topic = "orders"): Map<string, SyncPoint[]> {
  return new Map(Object.entries(byPartition).map(([p, list]) => [flowPartitionKey(FLOW, topic, Number(p)), list]));
}

/** The store's samples as objects, row by row, from their columns (lib/translation/sample-columns.ts). */
export function readSampleColumns(columns: TranslationSampleColumns): RowSample[] {
  const value = (column: SampleColumn, i: number): bigint | null => {
    const v = column[i]!;
    return typeof v === "number" ? (Number.isNaN(v) ? null : BigInt(v)) : v;
  };
  return Array.from({ length: columns.length }, (_, i) => ({
    group: columns.groups[i]!,
    topic: columns.topics[i]!,
    partition: columns.partitions[i]!,
    committed: value(columns.committed, i)!,
    translated: value(columns.translated, i),
    checkpointDownstream: value(columns.checkpointDownstream, i),
    idealLow: value(columns.idealLow, i),
    idealHigh: value(columns.idealHigh, i),
    reread: value(columns.reread, i),
    failoverReread: value(columns.failoverReread, i),
    groupLag: value(columns.groupLag, i),
  }));
}
