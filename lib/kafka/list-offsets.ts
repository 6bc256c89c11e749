import { getLogger } from "@/lib/logger";
import { type BrokerIo, isEveryBrokerFailed } from "./broker-io";
import { describeKafkaError, isNetworkFailure, kafkaErrorName, toUnreachableError } from "./errors";
import { ensureBrokersKnown, type TopicCache } from "./metadata";
import { partitionKey } from "./partition-key";
import type { ItemError, PartitionLeader, PartitionOffsets, RawListOffsetsRequestTopic as ListOffsetsRequestTopic, RawListOffsetsResponse as ListOffsetsResponse } from "./types";

const log = getLogger("kafka");

/** ListOffsets special timestamp ListOffsetsRequest.EARLIEST_TIMESTAMP: the log start offset. */
export const earliestTimestamp = -2n;
/** ListOffsets special timestamp ListOffsetsRequest.LATEST_TIMESTAMP: the log end offset. */
export const latestTimestamp = -1n;
/** isolation_level 0 = READ_UNCOMMITTED: "latest" is the high watermark, as MM2 reads it. */
const readUncommitted = 0;
/** replica_id -1: a normal consumer, not a follower. */
const consumerReplicaId = -1;

/** The ListOffsets request body for some partitions at one timestamp, one entry per topic. */
export function buildListOffsetsTopics(partitions: readonly PartitionLeader[], timestamp: bigint): ListOffsetsRequestTopic[] {
  const byTopic = new Map<string, ListOffsetsRequestTopic>();
  for (const p of partitions) {
    let topic = byTopic.get(p.topic);
    if (!topic) {
      topic = { name: p.topic, partitions: [] };
      byTopic.set(p.topic, topic);
    }
    // current_leader_epoch -1: no fencing; the caller's leader may be a cycle old (KIP-320).
    topic.partitions.push({ partitionIndex: p.partition, currentLeaderEpoch: -1, timestamp });
  }
  return [...byTopic.values()];
}

type OffsetEntry = { offset: bigint; leaderEpoch: number } | ItemError;

function indexResponse(response: ListOffsetsResponse): Map<string, OffsetEntry> {
  const index = new Map<string, OffsetEntry>();
  for (const t of response.topics) {
    for (const p of t.partitions) {
      index.set(
        partitionKey(t.name, p.partitionIndex),
        p.errorCode === 0 ? { offset: p.offset, leaderEpoch: p.leaderEpoch } : { error: kafkaErrorName(p.errorCode) },
      );
    }
  }
  return index;
}

/**
 * Joins the earliest and latest responses of one broker into per-partition results. A partition
 * failing in either response, or missing from it, gets `{ error }`; the others are unaffected.
 */
export function mergeOffsetResponses(
  partitions: readonly PartitionLeader[],
  earliest: ListOffsetsResponse | ItemError,
  latest: ListOffsetsResponse | ItemError,
): Map<string, PartitionOffsets | ItemError> {
  const early = "error" in earliest ? null : indexResponse(earliest);
  const late = "error" in latest ? null : indexResponse(latest);
  const out = new Map<string, PartitionOffsets | ItemError>();
  for (const p of partitions) {
    const key = partitionKey(p.topic, p.partition);
    const start = early ? early.get(key) ?? { error: "MISSING_FROM_RESPONSE" } : (earliest as ItemError);
    const end = late ? late.get(key) ?? { error: "MISSING_FROM_RESPONSE" } : (latest as ItemError);
    if ("error" in start) out.set(key, start);
    else if ("error" in end) out.set(key, end);
    else out.set(key, { logStart: start.offset, logEnd: end.offset, leaderEpoch: end.leaderEpoch });
  }
  return out;
}

/** Groups partitions by leader; partitions without a leader are returned apart. */
export function groupByLeader(partitions: readonly PartitionLeader[]): { byLeader: Map<number, PartitionLeader[]>; leaderless: PartitionLeader[] } {
  const byLeader = new Map<number, PartitionLeader[]>();
  const leaderless: PartitionLeader[] = [];
  const seen = new Set<string>();
  for (const p of partitions) {
    const key = partitionKey(p.topic, p.partition);
    if (seen.has(key)) continue;
    seen.add(key);
    if (p.leader === null) {
      leaderless.push(p);
      continue;
    }
    const list = byLeader.get(p.leader) ?? [];
    list.push(p);
    byLeader.set(p.leader, list);
  }
  return { byLeader, leaderless };
}

/**
 * Earliest and latest offsets: per leader broker exactly one ListOffsets at timestamp -2 and one
 * at -1, sent together; never per topic or partition. A broker that cannot be reached fails only
 * its partitions; when no broker of the cluster answers, throws KafkaUnreachableError.
 */
export async function readLogOffsets(io: BrokerIo, cache: TopicCache, partitions: readonly PartitionLeader[]): Promise<Map<string, PartitionOffsets | ItemError>> {
  const result = new Map<string, PartitionOffsets | ItemError>();
  const { byLeader, leaderless } = groupByLeader(partitions);
  for (const p of leaderless) result.set(partitionKey(p.topic, p.partition), { error: "LEADER_NOT_AVAILABLE" });
  if (byLeader.size === 0) return result;

  await ensureBrokersKnown(io, cache, byLeader.keys());
  const { api } = await io.chooseApi("ListOffsets");
  const failures: unknown[] = [];
  const failedBrokers = new Set<number>();
  await Promise.all(
    [...byLeader].map(async ([leader, list]) => {
      const failAll = (err: unknown): ItemError => ({ error: `broker ${leader}: ${describeKafkaError(err, io.conn.requestTimeoutMs)}` });
      let earliest: ListOffsetsResponse | ItemError;
      let latest: ListOffsetsResponse | ItemError;
      try {
        const connection = await io.connectToNode(leader);
        const send = (timestamp: bigint) =>
          io.send(connection, api, [consumerReplicaId, readUncommitted, buildListOffsetsTopics(list, timestamp)]).catch((err: unknown) => {
            failures.push(err);
            failedBrokers.add(leader);
            return failAll(err);
          });
        [earliest, latest] = await Promise.all([send(earliestTimestamp), send(latestTimestamp)]);
      } catch (err) {
        failures.push(err);
        failedBrokers.add(leader);
        earliest = latest = failAll(err);
      }
      const brokerError = "error" in earliest ? earliest.error : "error" in latest ? latest.error : null;
      if (brokerError) log.warn({ cluster: io.conn.alias, broker: leader, error: brokerError }, "ListOffsets failed on a broker");
      for (const [key, value] of mergeOffsetResponses(list, earliest, latest)) result.set(key, value);
    }),
  );
  const noneAnswered = failedBrokers.size === byLeader.size && failures.every(isNetworkFailure);
  if (noneAnswered && isEveryBrokerFailed(io.brokers.keys(), failedBrokers)) throw toUnreachableError(io.conn, failures[0], "(no leader broker answered ListOffsets)");
  return result;
}
