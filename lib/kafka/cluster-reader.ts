import { Admin, Consumer, type ConnectionPool } from "@platformatic/kafka";
import { getLogger } from "@/lib/logger";
import { BrokerIo, guardPool } from "./broker-io";
import { readBrokerUncleanElection, readTopicConfigs } from "./configs";
import { readEligibleLeaders } from "./eligible-leaders";
import { KafkaRequestError } from "./errors";
import { fetchPartitions } from "./fetch-records";
import { listGroups, readGroupOffsets, readShareGroupOffsets } from "./groups";
import { readLogOffsets } from "./list-offsets";
import { requestMetadata, type TopicCache } from "./metadata";
import { readEpochEndOffsets } from "./offset-for-leader-epoch";
import { type ResolvedConnection, resolveConnection, toClientOptions } from "./options";
import { partitionKey } from "./partition-key";
import { RequestCounter } from "./request-counter";
import type {
  ClusterMetadata,
  ClusterReader,
  EpochEndOffset,
  EpochEndRequest,
  FetchOptions,
  FetchRequestItem,
  FetchResult,
  GroupOffsetRow,
  GroupSummary,
  ItemError,
  KafkaClusterConnection,
  PartitionLeader,
  PartitionOffsets,
  RequestCount,
  ShareGroupOffsetRow,
  TopicConfigValues,
} from "./types";

const log = getLogger("kafka");

/**
 * One cluster's reader: one long-lived platformatic Admin whose connection pool carries every
 * admin-side request, and one Consumer (created on the first fetch, never joining a group) whose
 * pool carries Fetch requests, so a fetch waiting for data never queues behind metadata reads.
 * Requests are built with platformatic's versioned low-level APIs, so that each read sends exactly
 * the requests its doc comment promises and keeps partial results.
 */
class KafkaClusterReader implements ClusterReader {
  readonly alias: string;
  readonly #conn: ResolvedConnection;
  readonly #context: object;
  readonly #admin: Admin;
  readonly #io: BrokerIo;
  readonly #counter: RequestCounter;
  readonly #topics: TopicCache = new Map();
  #consumer: Consumer | null = null;
  #closed = false;

  constructor(connection: KafkaClusterConnection) {
    this.#conn = resolveConnection(connection);
    this.alias = this.#conn.alias;
    // Identity marker: platformatic hands a client's `context` to each of its connections, which is
    // how the request counter tells this reader's requests from other clients' in the process.
    this.#context = Object.freeze({ gapwatchReader: this.alias });
    this.#admin = new Admin(toClientOptions(this.#conn, this.#context));
    this.#io = new BrokerIo(this.#conn, this.#admin.connections);
    this.#counter = new RequestCounter(this.#context);
    log.debug({ cluster: this.alias, bootstrap: this.#conn.bootstrap }, "cluster reader created");
  }

  readMetadata(topics?: string[]): Promise<ClusterMetadata> {
    return this.#run(() => requestMetadata(this.#io, this.#topics, topics ?? null));
  }

  readLogOffsets(partitions: PartitionLeader[]): Promise<Map<string, PartitionOffsets | ItemError>> {
    return this.#run(() => readLogOffsets(this.#io, this.#topics, partitions));
  }

  readTopicConfigs(topics: string[]): Promise<Map<string, TopicConfigValues | ItemError>> {
    return this.#run(() => readTopicConfigs(this.#io, topics));
  }

  readBrokerUncleanElection(): Promise<boolean | null> {
    return this.#run(() => readBrokerUncleanElection(this.#io, this.#topics));
  }

  listGroups(): Promise<GroupSummary[]> {
    return this.#run(() => listGroups(this.#io, this.#topics));
  }

  readGroupOffsets(groupIds: string[]): Promise<Map<string, GroupOffsetRow[] | ItemError>> {
    return this.#run(() => readGroupOffsets(this.#io, groupIds));
  }

  readShareGroupOffsets(groupIds: string[]): Promise<Map<string, ShareGroupOffsetRow[] | ItemError>> {
    return this.#run(() => readShareGroupOffsets(this.#io, groupIds));
  }

  readEpochEndOffsets(requests: EpochEndRequest[]): Promise<Map<string, EpochEndOffset | ItemError>> {
    return this.#run(() => readEpochEndOffsets(this.#io, this.#topics, requests));
  }

  readEligibleLeaders(topics: string[]): Promise<Map<string, number[]> | null> {
    return this.#run(() => readEligibleLeaders(this.#io, topics));
  }

  async fetchRecords(topic: string, partition: number, fromOffset: bigint, opts?: FetchOptions): Promise<FetchResult> {
    const results = await this.fetchPartitions([{ topic, partition, offset: fromOffset }], opts);
    return results.get(partitionKey(topic, partition)) ?? { error: "MISSING_FROM_RESPONSE" };
  }

  fetchPartitions(items: FetchRequestItem[], opts?: FetchOptions): Promise<Map<string, FetchResult>> {
    return this.#run(() => fetchPartitions(this.#io, this.#topics, this.#fetchPool(), items, opts));
  }

  requestCounts(): RequestCount[] {
    return this.#counter.counts(this.#io.brokers.values());
  }

  resetRequestCounts(): void {
    this.#counter.reset();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#counter.dispose();
    const closing = [this.#admin.close(), ...(this.#consumer ? [this.#consumer.close(true)] : [])];
    const failed = (await Promise.allSettled(closing)).filter((r) => r.status === "rejected");
    if (failed.length > 0) log.warn({ cluster: this.alias, failures: failed.length }, "closing Kafka connections failed");
  }

  #fetchPool(): ConnectionPool {
    if (!this.#consumer) {
      // A groupId is required by platformatic's Consumer, but this consumer never joins, commits
      // or looks up a coordinator: it only lends its connection pool to group-less Fetch requests.
      this.#consumer = new Consumer({ ...toClientOptions(this.#conn, this.#context), groupId: `${this.#conn.clientId}-groupless-reader` });
      guardPool(this.#consumer.connections, this.alias);
    }
    return this.#consumer.connections;
  }

  #run<T>(read: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new KafkaRequestError(this.alias, `the reader of cluster ${this.alias} is closed`));
    return read();
  }
}

/**
 * Creates the reader of one cluster. Validates the connection (ConfigError naming the field) but
 * does not connect: the first read does, and every read reconnects by itself after a failure.
 */
export function createClusterReader(conn: KafkaClusterConnection): ClusterReader {
  return new KafkaClusterReader(conn);
}
