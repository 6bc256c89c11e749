import type { ClusterConfig } from "@/lib/config";
import {
  type ClusterReader,
  type GroupOffsetRow,
  type GroupSummary,
  isItemError,
  type ItemError,
  type PartitionOffsets,
  type ShareGroupOffsetRow,
  type TopicConfigValues,
  type TopicMetadata,
} from "@/lib/kafka";
import { ClusterPartitionRows, definePartitionsFromRows } from "./cluster-partition-rows";
import { readEligibleLeaderReplicas } from "./eligible-leaders";
import type { LeaderMark } from "./leader-marks";
import { readPreviousEpochEnds } from "./previous-epoch-end";
import { findAuthorizationError } from "./denied-reads";
import type { ClusterSnapshot, ConsumerGroupState, DeniedRead, TopicConfigs, TopicState } from "./types";

export interface ClusterPollOptions {
  /** Re-read topic configs and the broker default this cycle (they change rarely). */
  refreshConfigs: boolean;
  now: number;
  /** The cluster's last known high watermark and epoch per `topic/partition` (leader-marks.ts). */
  leaderMarks?: ReadonlyMap<string, LeaderMark>;
}

/**
 * One cycle's reads of one cluster: one Metadata request, ListOffsets earliest+latest batched per
 * leader broker, group offsets, (every N cycles) topic configs, OffsetForLeaderEpoch where a
 * leader epoch rose, and DescribeTopicPartitions where a leader is alone in sync. A cluster that
 * does not answer keeps its previous data, marked stale with the time it was read and the error.
 */
export async function pollCluster(reader: ClusterReader, config: ClusterConfig, previous: ClusterSnapshot | null, opts: ClusterPollOptions): Promise<ClusterSnapshot> {
  let metadata;
  try {
    metadata = await reader.readMetadata();
  } catch (err) {
    return markUnreachable(config, previous, describeError(err));
  }
  const errors: string[] = [];
  // Group offsets before log offsets: a group that keeps up commits offsets up to the log end it
  // saw, so reading the log end afterwards keeps "committed ≤ log end" true (no false
  // OFFSET_OUT_OF_RANGE from the order of reads).
  const groups = await readGroups(reader, errors, previous?.groups ?? [], opts.now);
  const leaders = metadata.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader })));
  // A broker that fails ListOffsets fails only its own partitions (lib/kafka list-offsets.ts);
  // when the whole call fails, every partition carries that error.
  let offsetsError = "no offsets returned";
  const offsets = await reader.readLogOffsets(leaders).catch((err: unknown) => {
    offsetsError = `ListOffsets: ${describeError(err)}`;
    errors.push(offsetsError);
    return new Map<string, PartitionOffsets | ItemError>();
  });

  const previousConfigs = new Map((previous?.topics ?? []).map((t) => [t.name, t.configs]));
  const needConfigs = metadata.topics.filter((t) => opts.refreshConfigs || !previousConfigs.get(t.name)).map((t) => t.name);
  const configs = needConfigs.length
    ? await reader.readTopicConfigs(needConfigs).catch((err: unknown) => {
        errors.push(`DescribeConfigs: ${describeError(err)}`);
        return new Map<string, TopicConfigValues | { error: string }>();
      })
    : new Map<string, TopicConfigValues | { error: string }>();
  const denied: DeniedRead[] = [];
  const deny = (api: string, resourceType: DeniedRead["resourceType"], resource: string, error: string) => {
    const name = findAuthorizationError(error);
    if (name !== null) denied.push({ api, resourceType, resource, error: name });
  };
  const uncleanDefault = opts.refreshConfigs || previous?.uncleanLeaderElectionDefault == null
    ? await reader.readBrokerUncleanElection().catch((err: unknown) => {
        deny("DescribeConfigs", "cluster", "kafka-cluster", describeError(err));
        return previous?.uncleanLeaderElectionDefault ?? null;
      })
    : previous.uncleanLeaderElectionDefault;
  for (const [name, raw] of configs) if (isItemError(raw)) deny("DescribeConfigs", "topic", name, raw.error);
  // Between config refreshes a topic whose configs were denied keeps its older configs and is not asked again: its
  // denial stands until a refresh reads it (the blind spot must not come and go with the refresh cycle).
  const listed = new Set(metadata.topics.map((t) => t.name));
  for (const d of previous?.denied ?? []) {
    if (d.api === "DescribeConfigs" && d.resourceType === "topic" && listed.has(d.resource) && !configs.has(d.resource)) denied.push(d);
  }
  for (const [key, o] of offsets) if (isItemError(o)) deny("ListOffsets", "topic", key.slice(0, key.lastIndexOf("/")), o.error);
  for (const g of groups) if (g.error !== null) deny("OffsetFetch", "group", g.groupId, g.error);

  const rows = writePartitionRows(metadata.topics, offsets, offsetsError);
  const readTopics = metadata.topics.map((t, i): TopicState => {
    const raw = configs.get(t.name);
    const topic: TopicState = {
      name: t.name,
      topicId: t.topicId,
      internal: t.isInternal,
      configs: raw && !isItemError(raw) ? reshapeTopicConfigs(raw) : (previousConfigs.get(t.name) ?? null),
      partitions: [],
    };
    definePartitionsFromRows(topic, rows, i);
    return topic;
  });

  // Only where a leader epoch rose above the last known one (UNCLEAN_TRUNCATION's exact range),
  // and where the leader is alone in sync (NO_CLEAN_SUCCESSOR).
  const topics = await readEligibleLeaderReplicas(reader, await readPreviousEpochEnds(reader, opts.leaderMarks, readTopics, errors), errors);

  return {
    alias: config.alias,
    bootstrap: config.bootstrap,
    reachable: true,
    error: errors.length ? errors.join("; ") : null,
    dataAt: opts.now,
    stale: false,
    brokers: metadata.brokers,
    controllerId: metadata.controllerId >= 0 ? metadata.controllerId : null,
    topics,
    groups,
    uncleanLeaderElectionDefault: uncleanDefault,
    ...(denied.length === 0 ? {} : { denied: dedupeDenied(denied) }),
  };
}

/**
 * The partition states of the Metadata and ListOffsets answers as rows (cluster-partition-rows.ts): the leader epoch is
 * the newer of the two answers', and a partition without offsets carries why (its own error first).
 */
function writePartitionRows(
  topics: readonly TopicMetadata[],
  offsets: ReadonlyMap<string, PartitionOffsets | ItemError>,
  offsetsError: string,
): ClusterPartitionRows {
  let length = 0;
  let ids = 0;
  for (const t of topics) {
    length += t.partitions.length;
    for (const p of t.partitions) ids += p.replicas.length + p.isr.length + p.offlineReplicas.length;
  }
  const rows = new ClusterPartitionRows(topics.length, length, ids);
  let at = 0;
  for (let i = 0; i < topics.length; i++) {
    const t = topics[i]!;
    rows.startTopic(i, t.name, at);
    for (const p of t.partitions) {
      const o = offsets.get(`${t.name}/${p.partition}`);
      const failed = o === undefined ? offsetsError : isItemError(o) ? `ListOffsets: ${o.error}` : null;
      const read = o === undefined || isItemError(o) ? null : o;
      rows.put(at++, {
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: read === null ? p.leaderEpoch : Math.max(read.leaderEpoch, p.leaderEpoch),
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
        logStart: read === null ? null : read.logStart,
        logEnd: read === null ? null : read.logEnd,
        error: p.error ?? failed,
      });
    }
  }
  return rows;
}

/** One entry per api and resource (ListOffsets fails per partition). */
function dedupeDenied(denied: readonly DeniedRead[]): DeniedRead[] {
  return [...new Map(denied.map((d) => [`${d.api}|${d.resourceType}|${d.resource}`, d])).values()];
}

/**
 * Groups that consume (classic and KIP-848 consumer groups, Kafka Streams and share groups; not
 * Connect's worker groups) and their committed offsets, or a share group's start offsets. A group
 * whose offsets cannot be read keeps its last good offsets with the error and when they were read;
 * when the groups cannot even be listed, every group of the previous cycle is kept that way
 * (unknown is not "no groups").
 */
async function readGroups(reader: ClusterReader, errors: string[], previous: readonly ConsumerGroupState[], now: number): Promise<ConsumerGroupState[]> {
  const before = new Map(previous.map((g) => [g.groupId, g]));
  const keepPrevious = (group: ConsumerGroupState | undefined, error: string) => ({
    offsets: group?.offsets ?? [],
    ...(group?.shareOffsets === undefined ? {} : { shareOffsets: group.shareOffsets }),
    error,
    dataAt: group?.dataAt ?? null,
  });
  let listed;
  try {
    listed = (await reader.listGroups()).filter((g) => g.protocolType === "consumer" || g.protocolType === "" || g.groupType === "streams" || g.groupType === "share");
  } catch (err) {
    const error = `consumer groups: ${describeError(err)}`;
    errors.push(error);
    return previous.map((g) => ({ ...g, ...keepPrevious(g, error) }));
  }
  if (listed.length === 0) return [];
  const shareIds = listed.filter((g) => g.groupType === "share").map((g) => g.groupId);
  const committing = listed.filter((g) => g.groupType !== "share");
  const failAll = (what: string, ids: string[]) => (err: unknown) => {
    const error = `${what}: ${describeError(err)}`;
    errors.push(error);
    return new Map<string, ItemError>(ids.map((id) => [id, { error }]));
  };
  const [offsets, shareOffsets] = await Promise.all([
    committing.length === 0 ? new Map<string, GroupOffsetRow[] | ItemError>() : reader.readGroupOffsets(committing.map((g) => g.groupId)).catch(failAll("OffsetFetch", committing.map((g) => g.groupId))),
    shareIds.length === 0 ? new Map<string, ShareGroupOffsetRow[] | ItemError>() : reader.readShareGroupOffsets(shareIds).catch(failAll("DescribeShareGroupOffsets", shareIds)),
  ]);
  const readOf = (g: GroupSummary) => {
    if (g.groupType !== "share") {
      const rows = offsets.get(g.groupId) ?? { error: "no offsets returned" };
      return isItemError(rows) ? keepPrevious(before.get(g.groupId), rows.error) : { offsets: rows, error: null, dataAt: now };
    }
    const rows = shareOffsets.get(g.groupId) ?? { error: "no start offsets returned" };
    return isItemError(rows) ? keepPrevious(before.get(g.groupId), rows.error) : { offsets: [], shareOffsets: rows, error: null, dataAt: now };
  };
  return listed
    .map((g): ConsumerGroupState => {
      const read = readOf(g);
      return { groupId: g.groupId, state: g.state, protocolType: g.protocolType, groupType: g.groupType, members: g.members, ...read };
    })
    .sort((a, b) => a.groupId.localeCompare(b.groupId));
}

/** Parses the configs Gapwatch uses; -1 retention means infinite (null). */
export function reshapeTopicConfigs(raw: TopicConfigValues): TopicConfigs {
  const retention = (v: string | undefined) => (v === undefined || v === "-1" || !/^-?\d+$/.test(v) ? null : BigInt(v));
  return {
    retentionMs: retention(raw["retention.ms"]),
    retentionBytes: retention(raw["retention.bytes"]),
    cleanupPolicy: raw["cleanup.policy"] ?? "delete",
    uncleanLeaderElection: raw["unclean.leader.election.enable"] === "true",
    minInsyncReplicas: /^\d+$/.test(raw["min.insync.replicas"] ?? "") ? Number(raw["min.insync.replicas"]) : null,
    maxMessageBytes: /^\d+$/.test(raw["max.message.bytes"] ?? "") ? Number(raw["max.message.bytes"]) : null,
  };
}

function markUnreachable(config: ClusterConfig, previous: ClusterSnapshot | null, error: string): ClusterSnapshot {
  return {
    alias: config.alias,
    bootstrap: config.bootstrap,
    reachable: false,
    error,
    dataAt: previous?.dataAt ?? null,
    stale: previous !== null && previous.dataAt !== null,
    brokers: previous?.brokers ?? [],
    controllerId: previous?.controllerId ?? null,
    topics: previous?.topics ?? [],
    groups: previous?.groups ?? [],
    uncleanLeaderElectionDefault: previous?.uncleanLeaderElectionDefault ?? null,
  };
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
