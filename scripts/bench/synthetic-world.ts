import { createHash } from "node:crypto";
import { ClusterPartitionRows, definePartitionsFromRows } from "@/lib/collector/cluster-partition-rows";
import { buildFlow, type FlowReadings } from "@/lib/collector/flow-builder";
import { discoverFlows, type FlowDefinition } from "@/lib/collector/flow-discovery";
import { maxSyncsInMemory } from "@/lib/collector/flow-readings";
import { internPartitionName } from "@/lib/collector/partition-keys";
import type { SyncHistory } from "@/lib/collector/sync-history";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import {
  type CheckpointPoint,
  type ClusterSnapshot,
  type ConsumerGroupState,
  flowPartitionKey,
  type OffsetSyncPoint,
  type PartitionState,
  type Snapshot,
  type TopicState,
} from "@/lib/collector/types";
import { defaultCheckpointTiming } from "@/lib/mm2";

/** Records each source partition grows by per cycle, and how far MM2's position trails a healthy one. */
const recordsPerCycle = 10n;
const healthyBehind = 5n;
/** Connect publishes MM2's position one flush late: its committed position trails the real one by this much. */
const committedBehind = 5n;
/** A lagging partition got a burst of records MM2 has not copied (over lagRecords, 10,000) and copies 2 a cycle. */
const laggingBurst = 12_000n;
const laggingSpeed = 2n;
/** MM2 writes an offset sync every offset.lag.max (100) records: every 10th cycle per partition. */
const syncEveryCycles = 10;
/** MM2 emits checkpoints every emit.checkpoints.interval.seconds (60 s): every 12th cycle per group partition. */
const checkpointEveryCycles = 12;
/** Cycle time: the bench's poll interval. */
export const cycleMs = 5000;

type Kind = "healthy" | "lagging" | "stalled";

/** One flow partition of the world: where it started and how it moves. */
interface WorldPartition {
  topic: string;
  partition: number;
  key: string;
  kind: Kind;
  source: PartitionState;
  target: PartitionState;
  /** MM2's position at cycle 0. */
  position0: bigint;
  /** Target log end − MM2 position, as the newest sync says (MM2 copies one record per offset). */
  delta: bigint;
  /** Its history in the world's SyncHistoryStore. */
  history: SyncHistory;
}

/** One group partition: where its group's commit started, and its index (staggers MM2's checkpoints). */
interface WorldCommit {
  group: string;
  topic: string;
  partition: number;
  offset0: bigint;
  leaderEpoch: number;
  index: number;
  wp: WorldPartition;
}

/** A real snapshot scaled up, advanced one cycle at a time. */
export interface SyntheticWorld {
  def: FlowDefinition;
  base: Snapshot;
  flowPartitions: number;
  topics: number;
  groups: number;
  groupPartitions: number;
  /** The collector's sync history: the collector's store, appended to in place. */
  syncs: SyncHistoryStore;
  /** The next cycle's clusters and readings (generation is not part of what is measured). */
  advance(cycle: number, now: number): { clusters: ClusterSnapshot[]; readings: FlowReadings };
}

/**
 * Scales `base` (a real cycle's snapshot from the sandbox, bench/fixtures) to about `partitions` flow
 * partitions: every flow topic is copied under `<topic>-x<k>` on both clusters (new topic IDs, the
 * real configs and partition layouts), with its offset-sync history, and every consumer group on the
 * flow's topics is copied as `<group>-x<k>` committing on copy k (the sandbox's kafkajs groups commit
 * without a leader epoch; copies commit with one, as Java clients do, so COMMIT_WITHOUT_LEADER_EPOCH
 * stays two risk flags, not one per copy). The flow's checkpoint timing is MM2's default (60 s emit).
 *
 * Each cycle: every source partition grows by 10 records; MM2 trails a healthy one by 5 (Connect's
 * committed position by 5 more) and writes an offset sync every 10th cycle (offset.lag.max = 100);
 * 1% of partitions lag (12,000 records behind, copying 2 a cycle: REPLICATION_LAG); 1 in 20,000
 * (at least one) is stalled with its unreplicated records deleted from cycle 2 on (DATA_LOSS, then
 * TASK_STALLED after 120 s); groups advance with their log (keeping their captured distance) and MM2
 * checkpoints each group partition every 12th cycle.
 */
export function createSyntheticWorld(base: Snapshot, history: ReadonlyMap<string, readonly OffsetSyncPoint[]>, flowId: string, partitions: number): SyntheticWorld {
  const clusterNames = base.clusters.map((c) => ({ alias: c.alias, topicNames: c.topics.map((t) => t.name) }));
  const def = discoverFlows(base.connect, clusterNames).find((d) => d.id === flowId);
  const flow = base.flows.find((f) => f.id === flowId);
  const sourceBase = base.clusters.find((c) => c.alias === def?.source);
  const targetBase = base.clusters.find((c) => c.alias === def?.target);
  if (!def || !flow || !sourceBase || !targetBase || flow.partitions.length === 0) throw new Error(`the snapshot has no flow ${flowId} with partitions`);
  const productionDef: FlowDefinition = { ...def, checkpointTiming: defaultCheckpointTiming };
  const remote = (name: string) => def.policy.formatRemoteTopic(def.source, name);
  const flowTopics = new Set(flow.partitions.map((p) => p.topic));
  const originals = sourceBase.topics.filter((t) => flowTopics.has(t.name));
  const targetByName = new Map(targetBase.topics.map((t) => [t.name, t]));
  const positionOf = new Map(flow.partitions.map((p) => [`${p.topic}/${p.partition}`, p.mm2Position]));
  const copies = Math.ceil(partitions / flow.partitions.length);

  const sourceTopics: { topic: TopicState; parts: WorldPartition[] }[] = [];
  const targetTopics: { topic: TopicState; parts: WorldPartition[] }[] = [];
  const byName = new Map<string, WorldPartition>();
  const syncs = new SyncHistoryStore(maxSyncsInMemory);
  // 1 in 20,000 partitions is stalled (at least one), 1 in 100 lags.
  const stalledAt = 4711 % Math.min(20_000, partitions);
  let index = 0;
  for (let k = 0; k < copies; k++) {
    for (const original of originals) {
      const twin = targetByName.get(remote(original.name));
      if (!twin) continue;
      const name = k === 0 ? original.name : `${original.name}-x${k}`;
      const parts: WorldPartition[] = [];
      for (const p of original.partitions) {
        const t = twin.partitions.find((x) => x.partition === p.partition);
        if (!t || p.logEnd === null || t.logEnd === null) continue;
        const baseHistory = history.get(flowPartitionKey(flowId, original.name, p.partition)) ?? [];
        const last = baseHistory.at(-1);
        const position0 = positionOf.get(`${original.name}/${p.partition}`) ?? p.logEnd;
        const key = flowPartitionKey(flowId, name, p.partition);
        syncs.append(key, baseHistory);
        const wp: WorldPartition = {
          topic: name,
          partition: p.partition,
          key,
          kind: index % 20_000 === stalledAt ? "stalled" : index % 100 === 37 ? "lagging" : "healthy",
          source: { ...p, topic: name },
          target: { ...t, topic: remote(name) },
          position0,
          delta: last ? last.downstream - last.upstream : t.logEnd - position0,
          history: syncs.get(key)!,
        };
        byName.set(`${name}/${p.partition}`, wp);
        parts.push(wp);
        index++;
      }
      sourceTopics.push({ topic: { ...original, name, topicId: k === 0 ? original.topicId : deriveTopicId(`source/${name}`) }, parts });
      targetTopics.push({ topic: { ...twin, name: remote(name), topicId: k === 0 ? twin.topicId : deriveTopicId(`target/${name}`) }, parts });
    }
  }

  const commits: WorldCommit[] = [];
  const groupTemplates: { group: ConsumerGroupState; commits: WorldCommit[] }[] = [];
  for (let k = 0; k < copies; k++) {
    for (const g of sourceBase.groups) {
      const groupId = k === 0 ? g.groupId : `${g.groupId}-x${k}`;
      const own: WorldCommit[] = [];
      for (const o of g.offsets) {
        const wp = byName.get(`${k === 0 ? o.topic : `${o.topic}-x${k}`}/${o.partition}`);
        if (!wp) continue;
        const commit: WorldCommit = { group: groupId, topic: wp.topic, partition: o.partition, offset0: o.offset, leaderEpoch: k === 0 ? o.committedLeaderEpoch : wp.source.leaderEpoch, index: commits.length, wp };
        own.push(commit);
        commits.push(commit);
      }
      if (own.length > 0) groupTemplates.push({ group: { ...g, groupId }, commits: own });
    }
  }
  const checkpoints = new Map<string, CheckpointPoint>();
  for (let k = 0; k < copies; k++) {
    for (const c of flow.checkpoints) {
      const topic = k === 0 ? c.topic : `${c.topic}-x${k}`;
      if (!byName.has(`${topic}/${c.partition}`)) continue;
      const group = k === 0 ? c.group : `${c.group}-x${k}`;
      checkpoints.set(`${group}|${topic}|${c.partition}`, { ...c, group, topic, at: base.takenAt });
    }
  }

  let sourceIds = 0;
  let targetIds = 0;
  for (const { parts } of sourceTopics) {
    for (const wp of parts) {
      sourceIds += countReplicaIds(wp.source);
      targetIds += countReplicaIds(wp.target);
    }
  }
  const others = (cluster: ClusterSnapshot, names: ReadonlySet<string>) => cluster.topics.filter((t) => !names.has(t.name));
  const sourceOthers = others(sourceBase, flowTopics);
  const targetOthers = others(targetBase, new Set([...flowTopics].map(remote)));

  return {
    def: productionDef,
    base,
    flowPartitions: index,
    topics: sourceTopics.length,
    groups: groupTemplates.length,
    groupPartitions: commits.length,
    syncs,
    advance(cycle, now) {
      const c = BigInt(cycle);
      const positions = new Map<string, bigint>();
      const sourceOut: TopicState[] = [...sourceOthers];
      const targetOut: TopicState[] = [...targetOthers];
      // Held as the cluster poll holds them (cluster-partition-rows.ts): rows, a topic's array made when first read.
      const sourceRows = new ClusterPartitionRows(sourceTopics.length, index, sourceIds);
      const targetRows = new ClusterPartitionRows(targetTopics.length, index, targetIds);
      let at = 0;
      for (let i = 0; i < sourceTopics.length; i++) {
        const s = sourceTopics[i]!;
        sourceRows.startTopic(i, s.topic.name, at);
        targetRows.startTopic(i, targetTopics[i]!.topic.name, at);
        for (const wp of s.parts) {
          const state = stateAt(wp, c);
          putState(sourceRows, at, wp.source, state.logStart, state.logEnd);
          putState(targetRows, at, wp.target, wp.target.logStart, state.position + wp.delta);
          at++;
          // Keyed as the collector keys MM2's positions (flow-readings.ts): the same interned string every cycle.
          positions.set(internPartitionName(wp.topic, wp.partition), state.position - (wp.kind === "stalled" ? 1n : committedBehind + 1n));
          const h = wp.history;
          if ((cycle + wp.partition + i) % syncEveryCycles === 0 && (h.length === 0 || h.upstream(h.length - 1) < Number(state.position - 1n))) {
            syncs.append(wp.key, [{ upstream: state.position - 1n, downstream: state.position + wp.delta - 1n }]);
          }
        }
      }
      for (let i = 0; i < sourceTopics.length; i++) {
        sourceOut.push(holdTopic(sourceTopics[i]!.topic, sourceRows, i));
        targetOut.push(holdTopic(targetTopics[i]!.topic, targetRows, i));
      }
      const groups = groupTemplates.map(({ group, commits: own }) => ({
        ...group,
        dataAt: now,
        offsets: own.map((m) => ({ topic: m.topic, partition: m.partition, offset: m.offset0 + recordsPerCycle * c, committedLeaderEpoch: m.leaderEpoch })),
      }));
      for (const m of commits) {
        if ((cycle + m.index) % checkpointEveryCycles !== 0) continue;
        const upstream = m.offset0 + recordsPerCycle * c;
        const downstream = translateLikeMirrorMaker(m.wp.history, upstream);
        if (downstream !== null) checkpoints.set(`${m.group}|${m.topic}|${m.partition}`, { group: m.group, topic: m.topic, partition: m.partition, upstream, downstream, at: now - 2500 });
      }
      const source: ClusterSnapshot = { ...sourceBase, dataAt: now, topics: sourceOut, groups };
      const target: ClusterSnapshot = { ...targetBase, dataAt: now, topics: targetOut };
      const readings: FlowReadings = {
        positions,
        syncHistory: syncs,
        checkpoints: [...checkpoints.values()],
        latestHeartbeat: now - 1000,
        failures: { positionsError: null, syncsError: null },
        errors: [],
      };
      return { clusters: [source, target], readings };
    },
  };
}

/** How many broker ids the state's replica lists hold. */
function countReplicaIds(state: PartitionState): number {
  return state.replicas.length + state.isr.length + state.offlineReplicas.length;
}

/** Writes `state` with the cycle's log start and end into `rows` at `at`. */
function putState(
  rows: ClusterPartitionRows,
  at: number,
  state: PartitionState,
  logStart: bigint | null,
  logEnd: bigint | null,
): void {
  const { partition, leader, leaderEpoch, replicas, isr, offlineReplicas, error } = state;
  rows.put(at, { partition, leader, leaderEpoch, replicas, isr, offlineReplicas, logStart, logEnd, error });
  if (state.previousEpochEnd !== undefined) rows.addRare(at, { previousEpochEnd: state.previousEpochEnd });
  if (state.eligibleLeaderReplicas !== undefined) rows.addRare(at, { eligibleLeaderReplicas: state.eligibleLeaderReplicas });
}

/** A copy of `topic` whose partitions are topic `t` of `rows`. */
function holdTopic(topic: TopicState, rows: ClusterPartitionRows, t: number): TopicState {
  const held = { ...topic };
  definePartitionsFromRows(held, rows, t);
  return held;
}

/** Source log start and end, and MM2's position, of a partition at cycle `c`. */
function stateAt(wp: WorldPartition, c: bigint): { logStart: bigint | null; logEnd: bigint; position: bigint } {
  const logEnd0 = wp.source.logEnd!;
  if (wp.kind === "healthy") {
    const logEnd = logEnd0 + recordsPerCycle * c;
    const position = logEnd - healthyBehind > wp.position0 ? logEnd - healthyBehind : wp.position0;
    return { logStart: wp.source.logStart, logEnd, position };
  }
  if (wp.kind === "lagging") return { logStart: wp.source.logStart, logEnd: logEnd0 + laggingBurst + recordsPerCycle * c, position: wp.position0 + laggingSpeed * c };
  // Stalled (auto.offset.reset=none): retention deleted 20 records it had not copied.
  return { logStart: c >= 2n ? wp.position0 + 20n : wp.source.logStart, logEnd: logEnd0 + recordsPerCycle * c, position: wp.position0 };
}

/** MirrorCheckpointTask's translation with the newest sync at or below `upstream` (OffsetSyncStore.translateDownstream). */
function translateLikeMirrorMaker(history: SyncHistory, upstream: bigint): bigint | null {
  const at = Number(upstream);
  for (let i = history.length - 1; i >= 0; i--) {
    if (history.upstream(i) <= at) return BigInt(history.upstream(i) === at ? history.downstream(i) : history.downstream(i) + 1);
  }
  return null;
}

/** A topic ID made from the copy's name: the same world every run (replay baselines compare what pages show). */
function deriveTopicId(seed: string): string {
  const hex = createHash("sha256").update(seed).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The world's snapshot of cycle `cycle` at `now`: its clusters advanced one cycle and its flow built by the collector's
 * own buildFlow against `previous` (the snapshot before it, null on the first cycle).
 */
export function snapshotCycle(world: SyntheticWorld, cycle: number, now: number, previous: Snapshot | null): Snapshot {
  const { clusters, readings } = world.advance(cycle, now);
  const before = previous?.flows[0];
  const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
  return { ...world.base, cycle, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };
}
