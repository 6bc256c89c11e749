import { PartitionStateReader } from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot, ConsumerGroupState, GroupOffset, PartitionState, Snapshot } from "@/lib/collector/types";
import { type ClusterColumns, locatePartition, readClusterLogs, readTopicPositions, TopicFlag } from "./cluster-columns";
import { countOf, findCluster, findTopic, formatCount, isClusterFresh, listKnownGroups, namePartition, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/** Which side of the log a committed offset fell off. */
export const OutOfRangeSide = {
  /** Below the log start: records the group never read were deleted. */
  BELOW_LOG_START: "below-log-start",
  /** Above the log end: the log was truncated or recreated under the group. */
  ABOVE_LOG_END: "above-log-end",
} as const;
export type OutOfRangeSideName = (typeof OutOfRangeSide)[keyof typeof OutOfRangeSide];

interface OutOfRange {
  offset: GroupOffset;
  partition: KnownPartition;
  /** Records between the committed offset and the log boundary it fell off. */
  distance: bigint;
}

/**
 * OFFSET_OUT_OF_RANGE — a group's committed offset lies outside its partition's log, so its next
 * fetch gets OFFSET_OUT_OF_RANGE and the consumer resets per auto.offset.reset.
 *
 * LOGIC — per fresh cluster, per group read this cycle, per committed offset on a partition with known offsets;
 * one finding per group and side, `OFFSET_OUT_OF_RANGE|<cluster>|<group>|<side>`:
 * - below-log-start: offset < logStart. missingRecords = logStart − offset were deleted before the
 *   group read them (lost for the group whatever it does); if it resets to latest it also skips
 *   logEnd − logStart more (skippedIfLatest).
 * - above-log-end: offset > logEnd in this cycle AND the previous one (one cycle alone can be a
 *   commit read after a log end that has since grown). beyondBy = offset − logEnd; resetting to
 *   earliest re-reads logEnd − logStart records (rereadIfEarliest).
 * Severity warning for a group with members (it is about to reset), info for an empty group (old
 * commits of idle groups are common and harmless until the group starts again).
 */
export function detectOffsetsOutOfRange(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    const before = ctx.previous === null ? undefined : findCluster(ctx.previous, cluster.alias);
    let groupsBefore: Map<string, ConsumerGroupState> | null = null;
    const wasAbove = (groupId: string, now: OutOfRange) => {
      if (ctx.previous === null || !isClusterFresh(before)) return false;
      groupsBefore ??= indexGroups(listKnownGroups(before));
      return wasAboveLogEnd(ctx.previous, before, groupsBefore.get(groupId), now);
    };
    // The cluster findTopic would search (the first of its alias), as numbers.
    const logs = findCluster(ctx.current, cluster.alias);
    if (logs === undefined) continue;
    const lookup: OffsetLookup = {
      cluster: logs, columns: readClusterLogs(logs), topics: readTopicPositions(logs).byName, topic: null, at: -1,
      states: new PartitionStateReader(),
    };
    for (const group of listKnownGroups(cluster)) {
      // Made only for a group with an offset out of range (nearly none of 9,000 groups at 100,000 partitions).
      let below: OutOfRange[] | undefined;
      let above: OutOfRange[] | undefined;
      for (const offset of group.offsets) {
        const partition = findOutsideLog(lookup, offset);
        if (partition === null) continue;
        if (offset.offset < partition.logStart) (below ??= []).push({ offset, partition, distance: partition.logStart - offset.offset });
        if (offset.offset > partition.logEnd) (above ??= []).push({ offset, partition, distance: offset.offset - partition.logEnd });
      }
      const stillAbove = above?.filter((o) => wasAbove(group.groupId, o));
      if (below !== undefined) findings.push(createFinding(ctx, cluster, group, OutOfRangeSide.BELOW_LOG_START, below));
      if (stillAbove !== undefined && stillAbove.length > 0) findings.push(createFinding(ctx, cluster, group, OutOfRangeSide.ABOVE_LOG_END, stillAbove));
    }
  }
  return findings;
}

type KnownPartition = PartitionState & { logStart: bigint; logEnd: bigint };

/** A cluster's columns, and the last topic a committed offset was on (a group's offsets come topic by topic). */
interface OffsetLookup {
  cluster: ClusterSnapshot;
  columns: ClusterColumns;
  topics: ReadonlyMap<string, number>;
  topic: string | null;
  /** Its position in the cluster's topics, −1 when it has none. */
  at: number;
  /** Reads the states of a topic whose columns cannot answer. */
  states: PartitionStateReader;
}

/**
 * The partition a committed offset is on when its log offsets are known and the offset lies outside them, else null:
 * judged on the cluster's columns (an offset as a number compares with an exact column value as the bigints do,
 * since rounding keeps the order), on the partition objects for a topic whose columns cannot answer.
 */
function findOutsideLog(lookup: OffsetLookup, offset: GroupOffset): KnownPartition | null {
  if (offset.topic !== lookup.topic) {
    lookup.topic = offset.topic;
    lookup.at = lookup.topics.get(offset.topic) ?? -1;
  }
  const t = lookup.at;
  if (t < 0) return null;
  const { columns } = lookup;
  if ((columns.topicFlags[t]! & (TopicFlag.NOT_DENSE | TopicFlag.INEXACT)) !== 0) {
    // Read from the cluster poll's rows where the topic has them; its states are made only for an offset outside.
    const topic = lookup.cluster.topics[t]!;
    const states = lookup.states;
    states.open(topic);
    const i = states.locate(offset.partition, offset.partition);
    if (i < 0) return null;
    const { logStart, logEnd } = states.read(i);
    if (logStart === null || logEnd === null || (offset.offset >= logStart && offset.offset <= logEnd)) return null;
    return topic.partitions[i] as KnownPartition;
  }
  const at = locatePartition(columns, t, offset.partition);
  if (at < 0) return null;
  const start = columns.logStart[at]!;
  const end = columns.logEnd[at]!;
  const committed = Number(offset.offset);
  // NaN: a log offset not read, so the partition is not judged.
  if (Number.isNaN(start) || Number.isNaN(end) || (committed >= start && committed <= end)) return null;
  return lookup.cluster.topics[t]!.partitions[offset.partition] as KnownPartition;
}

/** The partition a committed offset is on, when its log offsets are known. */
function findPartition(snapshot: Snapshot, alias: string, offset: GroupOffset): KnownPartition | null {
  const partitions = findTopic(snapshot, alias, offset.topic)?.partitions;
  return partitions === undefined ? null : findPartitionIn(partitions, offset.partition);
}

/** Partition `partition` of a topic's partitions, when its log offsets are known. */
function findPartitionIn(partitions: readonly PartitionState[], partition: number): KnownPartition | null {
  // Partitions are listed in order (0, 1, 2, …): look there first.
  const at = partitions[partition];
  const found = at?.partition === partition ? at : partitions.find((p) => p.partition === partition);
  if (found === undefined || found.logStart === null || found.logEnd === null) return null;
  return found as KnownPartition;
}

function indexGroups(groups: readonly ConsumerGroupState[]): Map<string, ConsumerGroupState> {
  const byId = new Map<string, ConsumerGroupState>();
  for (const g of groups) if (!byId.has(g.groupId)) byId.set(g.groupId, g);
  return byId;
}

function wasAboveLogEnd(previous: Snapshot, before: ClusterSnapshot, group: ConsumerGroupState | undefined, now: OutOfRange): boolean {
  const offset = group?.offsets.find((o) => o.topic === now.offset.topic && o.partition === now.offset.partition);
  if (offset === undefined) return false;
  const partition = findPartition(previous, before.alias, offset);
  return partition !== null && offset.offset > partition.logEnd;
}

function createFinding(ctx: DetectorContext, cluster: ClusterSnapshot, group: ConsumerGroupState, side: OutOfRangeSideName, found: OutOfRange[]): Finding {
  const worst = found.reduce((w, o) => (o.distance > w.distance ? o : w));
  const total = found.reduce((sum, o) => sum + o.distance, 0n);
  const logSizes = found.reduce((sum, o) => sum + (o.partition.logEnd - o.partition.logStart), 0n);
  const worstName = namePartition(worst.offset.topic, worst.offset.partition);
  const below = side === OutOfRangeSide.BELOW_LOG_START;
  const detail = below
    ? `${countOf(total, "record")} deleted before it read them (worst ${worstName}: ${formatCount(worst.distance)})`
    : `its offsets are ${formatCount(total)} past the log end (worst ${worstName}: ${formatCount(worst.distance)}); resetting to earliest re-reads ${countOf(logSizes, "record")}`;
  return {
    key: `${FindingType.OFFSET_OUT_OF_RANGE}|${cluster.alias}|${group.groupId}|${side}`,
    type: FindingType.OFFSET_OUT_OF_RANGE,
    severity: group.members > 0 ? Severity.WARNING : Severity.INFO,
    cluster: cluster.alias,
    group: group.groupId,
    ...(found.length === 1 ? { topic: worst.offset.topic, partition: worst.offset.partition } : {}),
    summary: `Group ${group.groupId} at ${cluster.alias} committed offsets ${below ? "below the log start" : "above the log end"} on ${countOf(found.length, "partition")}: ${detail}`,
    evidence: {
      side,
      partitions: found.length,
      worstPartition: worstName,
      worstCommittedOffset: worst.offset.offset.toString(),
      worstLogStart: worst.partition.logStart.toString(),
      worstLogEnd: worst.partition.logEnd.toString(),
      ...(below
        ? { missingRecords: total.toString(), skippedIfLatest: logSizes.toString() }
        : { beyondBy: total.toString(), rereadIfEarliest: logSizes.toString() }),
      groupState: group.state,
      members: group.members,
    },
    observedAt: ctx.now,
  };
}
