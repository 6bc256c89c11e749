import { Kafka, logLevel } from "kafkajs";

/** Topics the workload writes on the source cluster (partition counts from the foundation issue). */
export const workloadTopics = [
  { topic: "orders", partitions: 6 },
  { topic: "payments", partitions: 3 },
  { topic: "clicks", partitions: 12 },
] as const;

/** A kafkajs client for sandbox tooling (workload, scenarios); never used by the monitoring path. */
export function sandboxKafka(bootstrap: string, clientId = "gapwatch-sandbox"): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
}

/** Creates topics that do not exist yet (replication factor 1) and waits for their metadata. */
export async function ensureTopics(
  bootstrap: string,
  topics: readonly { topic: string; partitions: number; configs?: Record<string, string> }[],
): Promise<void> {
  const admin = sandboxKafka(bootstrap).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.topic,
          numPartitions: t.partitions,
          replicationFactor: 1,
          configEntries: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
        })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

/** Log end offsets per partition of a topic, read with kafkajs (independent of the code under test). */
export async function fetchLogEnds(bootstrap: string, topic: string): Promise<Map<number, { low: bigint; high: bigint }>> {
  const admin = sandboxKafka(bootstrap).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, { low: BigInt(o.low), high: BigInt(o.high) }]));
  } finally {
    await admin.disconnect();
  }
}
