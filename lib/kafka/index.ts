/**
 * lib/kafka: the only module that talks to Kafka brokers for monitoring (on @platformatic/kafka).
 * Batched reads per cluster: one Metadata request, ListOffsets once per leader broker and
 * timestamp, DescribeConfigs/FindCoordinator in one request, group-less incremental fetches.
 */
export { createClusterReader } from "./cluster-reader";
export { KafkaRequestError } from "./errors";
export { connectionDefaults } from "./options";
export { hashKey } from "./key-hash";
export { partitionKey } from "./partition-key";
export { topicConfigKeys } from "./configs";
export { fetchDefaults } from "./fetch-records";
export { isItemError } from "./types";
export type {
  BatchSummary,
  BrokerMetadata,
  ClusterMetadata,
  EpochEndOffset,
  EpochEndRequest,
  ClusterReader,
  FetchedPartition,
  FetchedRecord,
  FetchedTransactions,
  FetchOptions,
  FetchRequestItem,
  FetchResult,
  GroupOffsetRow,
  GroupSummary,
  ItemError,
  KafkaClusterConnection,
  PartitionLeader,
  PartitionMetadata,
  PartitionOffsets,
  RequestCount,
  ShareGroupOffsetRow,
  TopicConfigValues,
  TopicMetadata,
} from "./types";
