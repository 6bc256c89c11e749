import type { ConnectionPool } from "@platformatic/kafka";
import { getLogger } from "@/lib/logger";
import { type BrokerIo, isEveryBrokerFailed } from "./broker-io";
import { describeKafkaError, isNetworkFailure, staleMetadataErrors, toUnreachableError } from "./errors";
import { ensureBrokersKnown, requestMetadata, type TopicCache } from "./metadata";
import { partitionKey } from "./partition-key";
import { reshapeFetchedPartition } from "./record-batches";
import type { FetchOptions, FetchRequestItem, FetchResult, RawFetchRequestTopic as FetchRequestTopic, RawFetchResponse as FetchResponse } from "./types";

const log = getLogger("kafka");

/** Defaults for tailing small internal topics. */
export const fetchDefaults = { maxBytes: 1024 * 1024, maxWaitMs: 100 } as const;
/** Upper bound of one Fetch response, whatever the number of partitions. */
const maxResponseBytes = 64 * 1024 * 1024;
/** KIP-227: session id 0 with epoch -1 is a full fetch that opens no fetch session on the broker. */
const sessionless = { id: 0, epoch: -1 } as const;
/** Fetch isolation_level: 0 READ_UNCOMMITTED (up to the high watermark), 1 READ_COMMITTED (up to the LSO). */
const readUncommitted = 0;
const readCommitted = 1;

/** Items of one Fetch request to one broker, with their topic's routing. */
interface RoutedItem extends FetchRequestItem {
  topicId: string | null;
}

/**
 * The Fetch request's topics: v13+ addresses topics by ID, v12 by name (platformatic's v12 writes
 * the `topicId` field as the name). Returns the key (ID or name) → topic name map for the answer.
 */
export function buildFetchTopics(items: readonly RoutedItem[], version: number, maxBytes: number): { topics: FetchRequestTopic[]; nameByKey: Map<string, string> } {
  const byKey = new Map<string, FetchRequestTopic>();
  const nameByKey = new Map<string, string>();
  for (const item of items) {
    const key = version >= 13 ? item.topicId ?? "" : item.topic;
    nameByKey.set(key, item.topic);
    let topic = byKey.get(key);
    if (!topic) {
      topic = { topicId: key, partitions: [] };
      byKey.set(key, topic);
    }
    // Leader epochs -1: no fencing and no divergence check; routing comes from our own metadata.
    topic.partitions.push({ partition: item.partition, currentLeaderEpoch: -1, fetchOffset: item.offset, lastFetchedEpoch: -1, partitionMaxBytes: maxBytes });
  }
  return { topics: [...byKey.values()], nameByKey };
}

/** Per-partition results of one Fetch response; partitions missing from it get an error. */
export function reshapeFetchResponse(items: readonly FetchRequestItem[], response: FetchResponse, nameByKey: Map<string, string>, committed = false): Map<string, FetchResult> {
  const raw = new Map<string, FetchResponse["responses"][number]["partitions"][number]>();
  for (const t of response.responses) {
    const name = nameByKey.get(t.topicId) ?? t.topicId;
    for (const p of t.partitions) raw.set(partitionKey(name, p.partitionIndex), p);
  }
  const out = new Map<string, FetchResult>();
  for (const item of items) {
    const key = partitionKey(item.topic, item.partition);
    const partition = raw.get(key);
    out.set(key, partition ? reshapeFetchedPartition(partition, item.offset, committed) : { error: response.errorCode !== 0 ? `FETCH_ERROR_${response.errorCode}` : "MISSING_FROM_RESPONSE" });
  }
  return out;
}

async function fetchOnce(
  io: BrokerIo,
  cache: TopicCache,
  pool: ConnectionPool,
  items: readonly FetchRequestItem[],
  opts: Required<FetchOptions>,
): Promise<{ results: Map<string, FetchResult>; failures: unknown[]; failedBrokers: Set<number> }> {
  const results = new Map<string, FetchResult>();
  const missing = [...new Set(items.filter((i) => !cache.has(i.topic)).map((i) => i.topic))];
  if (missing.length > 0) await requestMetadata(io, cache, missing);
  const byLeader = new Map<number, RoutedItem[]>();
  for (const item of items) {
    const topic = cache.get(item.topic);
    const partition = topic?.partitions.find((p) => p.partition === item.partition);
    if (!topic || !partition) results.set(partitionKey(item.topic, item.partition), { error: "UNKNOWN_TOPIC_OR_PARTITION" });
    else if (partition.leader === null) results.set(partitionKey(item.topic, item.partition), { error: "LEADER_NOT_AVAILABLE" });
    else byLeader.set(partition.leader, [...(byLeader.get(partition.leader) ?? []), { ...item, topicId: topic.topicId }]);
  }
  if (byLeader.size === 0) return { results, failures: [], failedBrokers: new Set() };
  await ensureBrokersKnown(io, cache, byLeader.keys());
  const { api, version } = await io.chooseApi("Fetch");
  const failures: unknown[] = [];
  const failedBrokers = new Set<number>();
  await Promise.all(
    [...byLeader].map(async ([leader, list]) => {
      const routable = version >= 13 ? list.filter((i) => i.topicId !== null) : list;
      for (const i of list) if (!routable.includes(i)) results.set(partitionKey(i.topic, i.partition), { error: "UNKNOWN_TOPIC_ID" });
      if (routable.length === 0) return;
      try {
        const { topics, nameByKey } = buildFetchTopics(routable, version, opts.maxBytes);
        const totalBytes = Math.min(maxResponseBytes, opts.maxBytes * routable.length);
        const connection = await io.connectToNode(leader, pool);
        // min_bytes 1: answer as soon as there is any data, or after max_wait_ms; no rack (KIP-392).
        const isolation = opts.readCommitted ? readCommitted : readUncommitted;
        const response = await io.send(connection, api, [opts.maxWaitMs, 1, totalBytes, isolation, sessionless.id, sessionless.epoch, topics, [], ""]);
        for (const [key, value] of reshapeFetchResponse(routable, response, nameByKey, opts.readCommitted)) results.set(key, value);
      } catch (err) {
        failures.push(err);
        failedBrokers.add(leader);
        const error = `broker ${leader}: ${describeKafkaError(err, io.conn.requestTimeoutMs)}`;
        log.warn({ cluster: io.conn.alias, broker: leader, error }, "Fetch failed on a broker");
        for (const i of routable) results.set(partitionKey(i.topic, i.partition), { error });
      }
    }),
  );
  return { results, failures, failedBrokers };
}

/**
 * Group-less fetch (no group, no commits, no fetch session): one Fetch per leader broker for all
 * its partitions. Partitions whose leader moved or whose topic was recreated are retried once
 * after a Metadata refresh of their topics. OFFSET_OUT_OF_RANGE is reported as `{ error }`.
 */
export async function fetchPartitions(io: BrokerIo, cache: TopicCache, pool: ConnectionPool, items: readonly FetchRequestItem[], options: FetchOptions = {}): Promise<Map<string, FetchResult>> {
  const opts = { maxBytes: options.maxBytes ?? fetchDefaults.maxBytes, maxWaitMs: options.maxWaitMs ?? fetchDefaults.maxWaitMs, readCommitted: options.readCommitted ?? false };
  const unique = [...new Map(items.map((i) => [partitionKey(i.topic, i.partition), i])).values()];
  if (unique.length === 0) return new Map();
  const first = await fetchOnce(io, cache, pool, unique, opts);
  const stale = unique.filter((i) => {
    const r = first.results.get(partitionKey(i.topic, i.partition));
    return r !== undefined && "error" in r && staleMetadataErrors.has(r.error);
  });
  if (stale.length > 0) {
    const topics = [...new Set(stale.map((i) => i.topic))];
    for (const t of topics) cache.delete(t);
    const retry = await fetchOnce(io, cache, pool, stale, opts);
    for (const [key, value] of retry.results) first.results.set(key, value);
  }
  const allFailed = first.failures.length > 0 && [...first.results.values()].every((r) => "error" in r);
  // Unreachable only when no broker of the cluster answers: one broker down fails just its partitions.
  if (allFailed && first.failures.every(isNetworkFailure) && isEveryBrokerFailed(io.brokers.keys(), first.failedBrokers)) {
    throw toUnreachableError(io.conn, first.failures[0], "(Fetch)");
  }
  return new Map(unique.map((i) => [partitionKey(i.topic, i.partition), first.results.get(partitionKey(i.topic, i.partition)) ?? { error: "MISSING_FROM_RESPONSE" }]));
}
