import type { BrokerIo } from "./broker-io";
import { kafkaErrorName, toClusterError } from "./errors";
import type { ClusterMetadata, PartitionMetadata, RawMetadataResponse, TopicMetadata } from "./types";

/** Metadata v10+ sends this for "no topic ID" (KIP-516: Uuid.ZERO_UUID). */
const zeroUuid = "00000000-0000-0000-0000-000000000000";

/** Topic metadata by name, kept between calls to route fetches and resolve leaders. */
export type TopicCache = Map<string, TopicMetadata>;

/** Turns a raw Metadata response into the domain shape: error names, null leaders, sorted lists. */
export function reshapeMetadata(raw: RawMetadataResponse): ClusterMetadata {
  const topics: TopicMetadata[] = raw.topics
    .filter((t): t is typeof t & { name: string } => typeof t.name === "string")
    .map((t) => ({
      name: t.name,
      topicId: normalizeTopicId(t.topicId),
      isInternal: t.isInternal,
      error: t.errorCode === 0 ? null : kafkaErrorName(t.errorCode),
      partitions: t.partitions
        .map(
          (p): PartitionMetadata => ({
            partition: p.partitionIndex,
            // Kafka's MetadataResponse uses -1 for "no leader" (LEADER_NOT_AVAILABLE).
            leader: p.leaderId < 0 ? null : p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: [...p.replicaNodes],
            isr: [...p.isrNodes],
            offlineReplicas: [...p.offlineReplicas],
            error: p.errorCode === 0 ? null : kafkaErrorName(p.errorCode),
          }),
        )
        .sort((a, b) => a.partition - b.partition),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    clusterId: raw.clusterId ?? null,
    controllerId: raw.controllerId,
    brokers: raw.brokers
      .map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null }))
      .sort((a, b) => a.nodeId - b.nodeId),
    topics,
  };
}

/** Lower-case hyphenated hex, or null for the zero UUID / missing ID. */
export function normalizeTopicId(id: string | null | undefined): string | null {
  if (!id) return null;
  const lower = id.toLowerCase();
  return lower === zeroUuid ? null : lower;
}

/**
 * Sends ONE Metadata request: all topics when `topics` is null, only brokers when it is empty.
 * Updates the known broker addresses and, for the topics returned, the topic cache.
 */
export async function requestMetadata(io: BrokerIo, cache: TopicCache, topics: string[] | null): Promise<ClusterMetadata> {
  try {
    const connection = await io.connectAny();
    const { api } = await io.chooseApi("Metadata");
    const raw = await io.send(connection, api, [topics, false, false]);
    const metadata = reshapeMetadata(raw);
    io.setBrokers(metadata.brokers);
    if (topics === null) cache.clear();
    for (const t of metadata.topics) {
      if (t.error === null) cache.set(t.name, t);
      else cache.delete(t.name);
    }
    return metadata;
  } catch (err) {
    throw toClusterError(io.conn, err, "Metadata");
  }
}

/** Makes sure broker addresses are known (a brokers-only Metadata request when none are). */
export async function ensureBrokersKnown(io: BrokerIo, cache: TopicCache, nodeIds: Iterable<number> = []): Promise<void> {
  const missing = io.brokers.size === 0 || [...nodeIds].some((id) => !io.brokers.has(id));
  if (missing) await requestMetadata(io, cache, []);
}
