import type {
  describeConfigsV4,
  describeTopicPartitionsV0,
  describeGroupsV5,
  fetchV17,
  listGroupsV4,
  listOffsetsV9,
  metadataV12,
  offsetFetchV9,
  offsetForLeaderEpochV4,
  RecordsBatch,
} from "@platformatic/kafka";
import type { TlsMaterial } from "@/lib/tls";

/**
 * Domain types of lib/kafka: what the rest of Gapwatch receives from a cluster. Offsets are
 * `bigint` (Kafka INT64); topic IDs are hyphenated lower-case hex; Kafka error codes are given by
 * name (e.g. "NOT_LEADER_OR_FOLLOWER", from the protocol's error table).
 *
 * Wire types (`Raw*`, platformatic's parsed responses) sit beside them and never leave lib/kafka.
 * Where several protocol versions are in use, the newest version's type describes them all.
 */

/** Metadata v10–v12 response. */
export type RawMetadataResponse = metadataV12.MetadataResponse;
/** One topic of a ListOffsets v5–v9 request. */
export type RawListOffsetsRequestTopic = listOffsetsV9.ListOffsetsRequestTopic;
/** ListOffsets v5–v9 response. */
export type RawListOffsetsResponse = listOffsetsV9.ListOffsetsResponse;
/** One resource of a DescribeConfigs v2–v4 request. */
export type RawDescribeConfigsRequestResource = describeConfigsV4.DescribeConfigsRequestResource;
/** DescribeConfigs v2–v4 response. */
export type RawDescribeConfigsResponse = describeConfigsV4.DescribeConfigsResponse;
/** ListGroups v4–v5 response; v5 adds each group's type ("classic", "consumer", …). */
export type RawListGroupsResponse = Omit<listGroupsV4.ListGroupsResponse, "groups"> & {
  groups: (listGroupsV4.ListGroupsResponse["groups"][number] & { groupType?: string })[];
};
/** DescribeGroups v5 response. */
export type RawDescribeGroupsResponse = describeGroupsV5.DescribeGroupsResponse;
/** OffsetFetch v8–v9 response. */
export type RawOffsetFetchResponse = offsetFetchV9.OffsetFetchResponse;
/** DescribeTopicPartitions v0 response. */
export type RawDescribeTopicPartitionsResponse = describeTopicPartitionsV0.DescribeTopicPartitionsResponse;
/** One topic of an OffsetForLeaderEpoch v4 request. */
export type RawOffsetForLeaderEpochRequestTopic = offsetForLeaderEpochV4.OffsetForLeaderEpochRequestTopic;
/** OffsetForLeaderEpoch v4 response. */
export type RawOffsetForLeaderEpochResponse = offsetForLeaderEpochV4.OffsetForLeaderEpochResponse;
/** One topic of a Fetch v12–v17 request (`topicId` holds the name in v12). */
export type RawFetchRequestTopic = fetchV17.FetchRequestTopic;
/** Fetch v12–v17 response. */
export type RawFetchResponse = fetchV17.FetchResponse;
/** One partition of a Fetch response, record batches already parsed. */
export type RawFetchResponsePartition = fetchV17.FetchResponsePartition;
/** A parsed v2 record batch. */
export type RawRecordsBatch = RecordsBatch;

/** SASL with a user name and password (Kafka's PlainLoginModule / ScramLoginModule). */
export interface KafkaPasswordSasl {
  mechanism: "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";
  username: string;
  password: string;
}

/**
 * SASL/OAUTHBEARER with a JWT from an OIDC token endpoint (client credentials grant), as Kafka's
 * OAuthBearerLoginCallbackHandler gets it (KIP-768); the Kafka client setting each field mirrors is named.
 */
export interface KafkaOAuthSasl {
  mechanism: "OAUTHBEARER";
  /** sasl.oauthbearer.token.endpoint.url */
  tokenEndpointUrl: string;
  /** sasl.oauthbearer.client.credentials.client.id (JAAS option clientId before Kafka 4.1) */
  clientId: string;
  /** sasl.oauthbearer.client.credentials.client.secret (JAAS option clientSecret) */
  clientSecret: string;
  /** sasl.oauthbearer.scope (JAAS option scope) */
  scope?: string;
  /** SASL extensions sent with the token (JAAS options extension_<name>), e.g. Confluent Cloud's logicalCluster. */
  extensions?: Record<string, string>;
  /** sasl.oauthbearer.header.urlencode: URL-encode client id and secret in the Basic authorization header. */
  headerUrlencode?: boolean;
  /** sasl.login.connect.timeout.ms and sasl.login.read.timeout.ms together: one token request (default 10000). */
  timeoutMs?: number;
  /** sasl.login.refresh.window.factor (0.5–1.0, default 0.8). */
  refreshWindowFactor?: number;
  /** sasl.login.refresh.min.period.seconds (0–900, default 60). */
  refreshMinPeriodSeconds?: number;
  /** sasl.login.refresh.buffer.seconds (0–3600, default 300). */
  refreshBufferSeconds?: number;
}

/**
 * Amazon MSK IAM: SASL/OAUTHBEARER with a token AWS's signer (aws-msk-iam-sasl-signer-js) makes from AWS credentials:
 * the default chain (environment, profile, web identity as on EKS, container and instance roles), a named `profile`,
 * or a `roleArn` assumed through STS — the awsProfileName / awsRoleArn / awsRoleSessionName options of AWS's Java
 * aws-msk-iam-auth.
 */
export interface KafkaMskIamSasl {
  mechanism: "AWS_MSK_IAM";
  region: string;
  profile?: string;
  roleArn?: string;
  roleSessionName?: string;
}

/** SASL settings of a cluster, by mechanism. */
export type KafkaSasl = KafkaPasswordSasl | KafkaOAuthSasl | KafkaMskIamSasl;

/** How to reach one Kafka cluster (one MM2 alias). */
export interface KafkaClusterConnection {
  /** MM2 alias, used in error messages and logs. */
  alias: string;
  /** Bootstrap brokers as host:port. */
  bootstrap: string[];
  /** Kafka client.id (default "gapwatch"). */
  clientId?: string;
  /** TLS: `true` for Node's built-in CAs, or the material read from the config (CA, client certificate or keystore). */
  tls?: TlsMaterial | boolean;
  sasl?: KafkaSasl;
  /** Connect and per-request timeout (default 10000 ms). */
  requestTimeoutMs?: number;
}

/** A per-item failure: the Kafka error name (e.g. "OFFSET_OUT_OF_RANGE") or a network message. */
export interface ItemError {
  error: string;
}

/** True when a per-item result is a failure. */
export function isItemError(value: unknown): value is ItemError {
  return typeof value === "object" && value !== null && typeof (value as { error?: unknown }).error === "string";
}

/** A broker as Metadata lists it. */
export interface BrokerMetadata {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

/** One partition as Metadata describes it. */
export interface PartitionMetadata {
  partition: number;
  /** Leader broker id; null when Kafka reports -1 (no leader). */
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  /** Kafka error name for this partition (e.g. "LEADER_NOT_AVAILABLE"), or null. */
  error: string | null;
}

/** One topic as Metadata describes it. */
export interface TopicMetadata {
  name: string;
  /** Hyphenated lower-case hex; null when the broker sent the all-zero UUID. */
  topicId: string | null;
  isInternal: boolean;
  /** Kafka error name for the whole topic, or null. */
  error: string | null;
  /** Sorted by partition number. */
  partitions: PartitionMetadata[];
}

/** The result of one Metadata request for all topics. */
export interface ClusterMetadata {
  clusterId: string | null;
  /** -1 when the cluster did not name one. */
  controllerId: number;
  brokers: BrokerMetadata[];
  /** Sorted by name. */
  topics: TopicMetadata[];
}

/** Earliest and latest offsets of one partition (ListOffsets with timestamps -2 and -1). */
export interface PartitionOffsets {
  logStart: bigint;
  /** High watermark (read_uncommitted). */
  logEnd: bigint;
  /** Leader epoch the leader returned with the latest offset. */
  leaderEpoch: number;
}

/** A partition whose offsets are wanted, with the leader from the last Metadata. */
export interface PartitionLeader {
  topic: string;
  partition: number;
  leader: number | null;
}

/** A partition whose end offset of `leaderEpoch` is wanted from its current leader. */
export interface EpochEndRequest {
  topic: string;
  partition: number;
  leader: number;
  /** The leader's epoch as the caller's Metadata gave it (the request is fenced to it). */
  currentLeaderEpoch: number;
  /** The epoch whose end offset is asked for. */
  leaderEpoch: number;
}

/** OffsetForLeaderEpoch's answer: the largest epoch ≤ the one asked that the leader knows, and its end offset. */
export interface EpochEndOffset {
  leaderEpoch: number;
  endOffset: bigint;
}

/** Config values of one topic, by config name (all values as strings). */
export type TopicConfigValues = Record<string, string>;

/** A classic consumer group as ListGroups + DescribeGroups show it. */
export interface GroupSummary {
  groupId: string;
  /** Upper-case state as Kafka names it, e.g. "STABLE", "EMPTY". */
  state: string;
  /** "consumer", "connect", … ("" for a group without members that never had a protocol). */
  protocolType: string;
  /**
   * "classic", "consumer" (KIP-848), "streams" (KIP-1071) or "share" (KIP-932), as ListGroups v5 reports it;
   * "classic" from older brokers.
   */
  groupType: string;
  /** Number of members; -1 when DescribeGroups failed for this group (see `error`). */
  members: number;
  /** Why the members could not be counted, if they could not. */
  error?: string;
}

/** Where a share group stands on one partition (DescribeShareGroupOffsets): share groups commit no offsets. */
export interface ShareGroupOffsetRow {
  topic: string;
  partition: number;
  /** The share-partition start offset (KIP-932's SPSO): every record below it is delivered or archived. */
  startOffset: bigint;
  leaderEpoch: number;
  /** The lag Kafka reports for the share-partition (DescribeShareGroupOffsets v1+); null when it does not. */
  lag: bigint | null;
}

/** One committed offset of a group (OffsetFetch). */
export interface GroupOffsetRow {
  topic: string;
  partition: number;
  offset: bigint;
  /** -1 when the commit carried no leader epoch (kafkajs never sends one). */
  committedLeaderEpoch: number;
}

/** One record read by a group-less fetch. */
export interface FetchedRecord {
  offset: bigint;
  /** Epoch milliseconds (create time, or log-append time when the topic uses it). */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
  /** Set (true) when the broker stamped the timestamp (a LogAppendTime topic): the producer's is gone. */
  logAppendTime?: true;
}

/** What one partition of a group-less fetch returned. */
export interface FetchedPartition {
  /** Records at or after the requested offset, in offset order (control records skipped). */
  records: FetchedRecord[];
  highWatermark: bigint;
  logStartOffset: bigint;
  /** Where to continue: one past the last batch returned, or the requested offset when none was. */
  nextOffset: bigint;
  /** Control batches (transaction commit/abort markers) among the batches read at or after the offset. */
  controlBatches: number;
  /** With `readCommitted`: what a read_committed consumer needs to tell aborted batches apart. */
  transactions?: FetchedTransactions;
}

/** One record batch as a transaction ledger needs it (no record contents). */
export interface BatchSummary {
  baseOffset: bigint;
  lastOffset: bigint;
  /** Records in the batch at or after the fetch offset (a control batch holds one marker). */
  records: number;
  /** -1 for a producer without an id (not idempotent). */
  producerId: bigint;
  /** The batch belongs to a transaction (attribute bit 4). */
  transactional: boolean;
  /** For a control batch, its marker's type (key of the control record); null for a data batch. */
  control: "commit" | "abort" | "other" | null;
}

/** A read_committed Fetch's view of transactions (FetchResponse v4+). */
export interface FetchedTransactions {
  /** The partition's last stable offset: read_committed reads stop there. */
  lastStableOffset: bigint;
  /** Aborted transactions overlapping the batches returned, as the broker's aborted-transaction index holds them. */
  abortedTransactions: { producerId: bigint; firstOffset: bigint }[];
  /** Every batch returned that ends at or after the fetch offset, in offset order, control batches included. */
  batches: BatchSummary[];
}

/**
 * A fetch of one partition: records, or `{ error }` with the Kafka error name. "OFFSET_OUT_OF_RANGE"
 * means the requested offset is below log start or above log end: restart from log start.
 */
export type FetchResult = FetchedPartition | ItemError;

/** One partition to fetch from `offset`. */
export interface FetchRequestItem {
  topic: string;
  partition: number;
  offset: bigint;
}

/** Limits of a group-less fetch. */
export interface FetchOptions {
  /** Bytes per partition (default 1 MiB); Kafka still returns a first batch that is larger. */
  maxBytes?: number;
  /** How long the broker may wait for data when there is none (default 100 ms). */
  maxWaitMs?: number;
  /** Fetch with isolation_level READ_COMMITTED (up to the last stable offset) and return `transactions`. */
  readCommitted?: boolean;
}

/** Requests sent since creation or the last reset, per Kafka API name and broker. */
export interface RequestCount {
  /** Kafka API name, e.g. "Metadata", "ListOffsets". */
  api: string;
  /** Broker node id as a string, or host:port for a bootstrap address not (yet) matched to one. */
  broker: string;
  count: number;
}

/** Reads one cluster for monitoring; one long-lived instance per cluster. */
export interface ClusterReader {
  readonly alias: string;
  /**
   * ONE Metadata request (all topics, or only `topics` when given): brokers, controller, topics with IDs, partitions
   * with leaders and epochs. All topics means those the principal may Describe (Kafka leaves the others out); named
   * topics come back each with its error, TOPIC_AUTHORIZATION_FAILED for one it may not.
   */
  readMetadata(topics?: string[]): Promise<ClusterMetadata>;
  /**
   * Earliest and latest offsets: one ListOffsets per leader broker and timestamp (≤ 2 per broker);
   * a failing broker or partition only fails its own entries. Keys are `${topic}/${partition}`.
   */
  readLogOffsets(partitions: PartitionLeader[]): Promise<Map<string, PartitionOffsets | ItemError>>;
  /** One DescribeConfigs for all topics: retention.ms, retention.bytes, cleanup.policy, unclean.leader.election.enable. */
  readTopicConfigs(topics: string[]): Promise<Map<string, TopicConfigValues | ItemError>>;
  /** Broker-level unclean.leader.election.enable of one broker; null when the broker does not report it. */
  readBrokerUncleanElection(): Promise<boolean | null>;
  /** Classic groups: ListGroups on every broker, then DescribeGroups on their coordinators. */
  listGroups(): Promise<GroupSummary[]>;
  /** Committed offsets (OffsetFetch v8+, with committed leader epochs); a failing group yields `{ error }`. */
  readGroupOffsets(groupIds: string[]): Promise<Map<string, GroupOffsetRow[] | ItemError>>;
  /** Share groups' start offsets: one DescribeShareGroupOffsets per coordinator (all topics of each group). */
  readShareGroupOffsets(groupIds: string[]): Promise<Map<string, ShareGroupOffsetRow[] | ItemError>>;
  /** End offsets of leader epochs on the current leaders (OffsetForLeaderEpoch, one per leader broker); a failing one yields `{ error }`. */
  readEpochEndOffsets(requests: EpochEndRequest[]): Promise<Map<string, EpochEndOffset | ItemError>>;
  /**
   * Eligible Leader Replicas (KIP-966) of the topics' partitions, keyed `${topic}/${partition}`, from
   * one DescribeTopicPartitions; a partition not described is absent; null when the brokers lack the API.
   */
  readEligibleLeaders(topics: string[]): Promise<Map<string, number[]> | null>;
  /** Group-less fetch of one partition from `fromOffset` (no group, no commits). */
  fetchRecords(topic: string, partition: number, fromOffset: bigint, opts?: FetchOptions): Promise<FetchResult>;
  /** Group-less fetch of several partitions: one Fetch per leader broker. Keys are `${topic}/${partition}`. */
  fetchPartitions(items: FetchRequestItem[], opts?: FetchOptions): Promise<Map<string, FetchResult>>;
  /** Requests sent by this reader since creation or the last reset. */
  requestCounts(): RequestCount[];
  resetRequestCounts(): void;
  /** Closes all connections; the reader cannot be used afterwards. */
  close(): Promise<void>;
}
