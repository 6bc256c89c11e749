import type { BrokerIo } from "./broker-io";
import { toClusterError } from "./errors";
import { partitionKey } from "./partition-key";
import type { RawDescribeTopicPartitionsResponse } from "./types";

/** Kafka's own cap on partitions per DescribeTopicPartitions response (max.request.partition.size.limit). */
const responsePartitionLimit = 2000;

/**
 * Each described partition's Eligible Leader Replicas (KIP-966), sorted, keyed `${topic}/${partition}`.
 * Partitions that failed, belong to a failed topic or lie beyond the response's page are absent.
 */
export function reshapeEligibleLeaders(response: RawDescribeTopicPartitionsResponse): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const t of response.topics) {
    if (!t.name || t.errorCode !== 0) continue;
    for (const p of t.partitions) {
      if (p.errorCode !== 0) continue;
      out.set(partitionKey(t.name, p.partitionIndex), [...p.eligibleLeaderReplicas].sort((a, b) => a - b));
    }
  }
  return out;
}

/**
 * ONE DescribeTopicPartitions (API 75, Kafka 3.7+) for `topics`, sent to any broker (it answers
 * from its metadata cache): the replicas the controller may still elect cleanly although they
 * left the ISR. Null when the brokers do not offer the API: they predate KIP-966, so no partition
 * has eligible leader replicas.
 */
export async function readEligibleLeaders(io: BrokerIo, topics: readonly string[]): Promise<Map<string, number[]> | null> {
  // Metadata and ListOffsets negotiated versions this cycle already: failing here means the API is missing.
  const chosen = await io.chooseApi("DescribeTopicPartitions").catch(() => null);
  if (chosen === null) return null;
  try {
    const connection = await io.connectAny();
    const response = await io.send(connection, chosen.api, [topics.map((name) => ({ name })), responsePartitionLimit, undefined]);
    return reshapeEligibleLeaders(response);
  } catch (err) {
    throw toClusterError(io.conn, err, "DescribeTopicPartitions");
  }
}
