import { countTopicPartitions, findTopicRows, type TopicRows } from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot, PartitionState } from "@/lib/collector/types";

/**
 * What a cluster rule asks of a topic before it reads the topic's partitions: one bit per question, set when at
 * least one partition of the topic answers yes. A rule reads the objects of the topics whose bit is set only, so
 * a healthy cluster's partitions are walked once a snapshot (here), not once per rule.
 */
export const TopicFlag = {
  /** A partition without a leader (OFFLINE). */
  OFFLINE: 1,
  /** A partition with a leader and fewer in-sync replicas than replicas (UNDER_REPLICATED). */
  UNDER_REPLICATED: 2,
  /** A partition whose ISR is at most its leader among more replicas, its ELR read (NO_CLEAN_SUCCESSOR may apply). */
  LEADER_ALONE: 4,
  /** A partition with one replica (REPLICATION_FACTOR_ONE). */
  SINGLE_REPLICA: 8,
  /** A partition with more than one replica (MIN_INSYNC_REPLICAS_ONE). */
  MULTI_REPLICA: 16,
  /** A partition with `previousEpochEnd` (UNCLEAN_TRUNCATION may apply). */
  EPOCH_END: 32,
  /** The topic's partitions are not listed as 0, 1, 2, …: its columns cannot be reached by partition number. */
  NOT_DENSE: 64,
  /** A log offset of the topic is beyond 2^53 − 1 (not exact as a number): read its partitions' bigints. */
  INEXACT: 128,
} as const;

/** One cluster's topics and partitions as numbers, for the rules that judge them every cycle. */
export interface ClusterColumns {
  /** Per position in `cluster.topics`: TopicFlag bits. */
  topicFlags: Uint8Array;
  /** Per position in `cluster.topics`, and one more: where its partitions start in the log columns. */
  topicStart: Int32Array;
  /**
   * Per partition, topic by topic in the cluster's order: log start and end (NaN: not read, or not exact). Filled
   * only where a rule reads them (readClusterLogs: a cluster with groups' offsets); empty otherwise.
   */
  logStart: Float64Array;
  logEnd: Float64Array;
  /** Whether logStart and logEnd are filled. */
  logs: boolean;
}

/** Where a cluster's topics are by name (made apart from the columns: no partition is read for it). */
export interface TopicPositions {
  /** Per topic name: the position of the first topic of that name in `cluster.topics` (as a `find` would answer). */
  byName: ReadonlyMap<string, number>;
  /** Per position in `cluster.topics`: the first position of a topic of that name (itself, but for a repeated name). */
  firstOfName: Int32Array;
}

/**
 * Snapshots are never changed once made (the collector keeps a cluster it could not read as the same object), so
 * a cluster's columns are made once, the first time a rule asks, and dropped with the cluster.
 */
const columnsByCluster = new WeakMap<ClusterSnapshot, ClusterColumns>();
const positionsByCluster = new WeakMap<ClusterSnapshot, TopicPositions>();

/**
 * The cluster's topics by name, made once per cluster object: every rule and lookup by name shares it (a map of
 * tens of thousands of names costs as much to make as a pass over the partitions).
 */
export function readTopicPositions(cluster: ClusterSnapshot): TopicPositions {
  let positions = positionsByCluster.get(cluster);
  if (positions === undefined) positionsByCluster.set(cluster, (positions = findTopicPositions(cluster)));
  return positions;
}

/** Per cluster alias, the topic names of the last map made and the map: kept while the names stay the same. */
const lastPositions = new Map<string, { names: readonly string[]; positions: TopicPositions }>();

/** The last map of the cluster's alias while its topics keep their names and order (the usual cycle), else a new one. */
function findTopicPositions(cluster: ClusterSnapshot): TopicPositions {
  const { topics } = cluster;
  const last = lastPositions.get(cluster.alias);
  const same = last !== undefined && last.names.length === topics.length && topics.every((t, i) => t.name === last.names[i]);
  if (same) return last.positions;
  const byName = new Map<string, number>();
  const firstOfName = new Int32Array(topics.length);
  const names = new Array<string>(topics.length);
  for (let t = 0; t < topics.length; t++) {
    const name = (names[t] = topics[t]!.name);
    const first = byName.get(name);
    if (first === undefined) byName.set(name, t);
    firstOfName[t] = first ?? t;
  }
  const positions = { byName, firstOfName };
  lastPositions.set(cluster.alias, { names, positions });
  return positions;
}

/**
 * The cluster's columns: made by one pass over its partitions the first time any rule or reader asks, with the log
 * offsets when the cluster has groups' committed offsets to judge against them.
 */
export function readClusterColumns(cluster: ClusterSnapshot): ClusterColumns {
  let columns = columnsByCluster.get(cluster);
  if (columns === undefined) {
    columns = buildClusterColumns(cluster, hasCommittedOffsets(cluster));
    columnsByCluster.set(cluster, columns);
  }
  return columns;
}

/** The cluster's columns with their log offsets filled (made again, with them, for a cluster made without). */
export function readClusterLogs(cluster: ClusterSnapshot): ClusterColumns {
  let columns = readClusterColumns(cluster);
  if (!columns.logs) columnsByCluster.set(cluster, (columns = buildClusterColumns(cluster, true)));
  return columns;
}

function hasCommittedOffsets(cluster: ClusterSnapshot): boolean {
  return cluster.groups.some((g) => g.error === null && g.offsets.length > 0);
}

/**
 * The position of partition `partition` of the topic at `topic` in the log columns, or −1 when the topic has no
 * such partition. Only for a topic without NOT_DENSE (the caller reads the objects of the others).
 */
export function locatePartition(columns: ClusterColumns, topic: number, partition: number): number {
  const start = columns.topicStart[topic]!;
  return partition >= 0 && partition < columns.topicStart[topic + 1]! - start ? start + partition : -1;
}

function buildClusterColumns(cluster: ClusterSnapshot, logs: boolean): ClusterColumns {
  const topics = cluster.topics;
  let total = 0;
  if (logs) for (const t of topics) total += countTopicPartitions(t);
  const topicFlags = new Uint8Array(topics.length);
  const topicStart = new Int32Array(topics.length + 1);
  const logStart = new Float64Array(total);
  const logEnd = new Float64Array(total);
  let at = 0;
  for (let t = 0; t < topics.length; t++) {
    const topic = topics[t]!;
    topicStart[t] = at;
    const found = findTopicRows(topic);
    if (found !== undefined) {
      topicFlags[t] = judgeTopicRows(found, logs ? { logStart, logEnd, at } : null);
      at += found.to - found.from;
      continue;
    }
    let flags = 0;
    const partitions = topic.partitions;
    for (let i = 0; i < partitions.length; i++, at++) {
      const p = partitions[i]!;
      if (p.partition !== i) flags |= TopicFlag.NOT_DENSE;
      flags |= judgeReplicas(p);
      if (!logs) continue;
      const start = toColumnValue(p.logStart);
      const end = toColumnValue(p.logEnd);
      if (start === inexact || end === inexact) flags |= TopicFlag.INEXACT;
      logStart[at] = start === inexact ? Number.NaN : start;
      logEnd[at] = end === inexact ? Number.NaN : end;
    }
    topicFlags[t] = flags;
  }
  topicStart[topics.length] = at;
  return { topicFlags, topicStart, logStart, logEnd, logs };
}

/**
 * The TopicFlag bits of a topic the cluster poll made, from its rows (as the loop over objects judges them), its log
 * offsets written into `logs` from position `at` when given.
 */
function judgeTopicRows(
  { rows, from, to }: TopicRows,
  logs: { logStart: Float64Array; logEnd: Float64Array; at: number } | null,
): number {
  let flags = 0;
  for (let i = from; i < to; i++) {
    if (rows.partition[i] !== i - from) flags |= TopicFlag.NOT_DENSE;
    const replicas = rows.countList(i, 0);
    flags |= replicas === 1 ? TopicFlag.SINGLE_REPLICA : replicas > 1 ? TopicFlag.MULTI_REPLICA : 0;
    const leader = rows.leader[i]!;
    if (leader < 0) flags |= TopicFlag.OFFLINE;
    else if (rows.countList(i, 1) < replicas) flags |= TopicFlag.UNDER_REPLICATED;
    const rare = rows.rare.size === 0 ? undefined : rows.rare.get(i);
    if (rare !== undefined) {
      if (rare.eligibleLeaderReplicas != null && leader >= 0 && replicas > 1) flags |= TopicFlag.LEADER_ALONE;
      if (rare.previousEpochEnd !== undefined) flags |= TopicFlag.EPOCH_END;
    }
    if (logs === null) continue;
    const start = rows.logStart[i]!;
    const end = rows.logEnd[i]!;
    const startInexact = start > Number.MAX_SAFE_INTEGER || start < -Number.MAX_SAFE_INTEGER;
    const endInexact = end > Number.MAX_SAFE_INTEGER || end < -Number.MAX_SAFE_INTEGER;
    if (startInexact || endInexact) flags |= TopicFlag.INEXACT;
    logs.logStart[logs.at + i - from] = startInexact ? Number.NaN : start;
    logs.logEnd[logs.at + i - from] = endInexact ? Number.NaN : end;
  }
  return flags;
}

/** An offset that a number cannot hold exactly (its column then holds NaN, and its topic is INEXACT). */
const inexact = Number.NEGATIVE_INFINITY;

/** An offset as a column value: NaN when not read, `inexact` beyond ±(2^53 − 1) (Number rounds monotonically). */
function toColumnValue(offset: bigint | null): number {
  if (offset === null) return Number.NaN;
  const n = Number(offset);
  return n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER ? inexact : n;
}

/** The TopicFlag bits one partition sets (the conditions the rules test on its object, or a superset of them). */
function judgeReplicas(p: PartitionState): number {
  const replicas = p.replicas.length;
  let flags = replicas === 1 ? TopicFlag.SINGLE_REPLICA : replicas > 1 ? TopicFlag.MULTI_REPLICA : 0;
  if (p.leader === null) flags |= TopicFlag.OFFLINE;
  else if (p.isr.length < replicas) flags |= TopicFlag.UNDER_REPLICATED;
  // The collector reads the ELR only while the ISR is the leader alone (types.ts): rare, then judged on the object.
  if (p.eligibleLeaderReplicas !== undefined && p.eligibleLeaderReplicas !== null && p.leader !== null && replicas > 1) {
    flags |= TopicFlag.LEADER_ALONE;
  }
  if (p.previousEpochEnd !== undefined) flags |= TopicFlag.EPOCH_END;
  return flags;
}
