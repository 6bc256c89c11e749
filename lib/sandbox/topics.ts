import { type Admin, Kafka, logLevel } from "kafkajs";

/** Topics the workload writes on the source cluster (partition counts from the foundation issue). */
export const workloadTopics = [
  { topic: "orders", partitions: 6 },
  { topic: "payments", partitions: 3 },
  { topic: "clicks", partitions: 12 },
] as const;

/**
 * Topics of a 3-broker source cluster (`sourceBrokers: 3`): the workload's topics, and `ledger`,
 * whose unclean.leader.election.enable=true lets a test elect an out-of-sync leader. Each has
 * replication factor 3 and min.insync.replicas=2, as production clusters do.
 */
export const multiBrokerTopics: readonly TopicSpec[] = [...workloadTopics, { topic: "ledger", partitions: 3 }].map((t) => ({
  ...t,
  replicationFactor: 3,
  configs: { "min.insync.replicas": "2", ...(t.topic === "ledger" ? { "unclean.leader.election.enable": "true" } : {}) },
}));

export interface TopicSpec {
  topic: string;
  partitions: number;
  /** Default 1 (a single-broker cluster). */
  replicationFactor?: number;
  /** Broker ids of each partition's replicas, by partition (instead of `replicationFactor`). */
  replicaAssignment?: number[][];
  configs?: Record<string, string>;
}

/** A kafkajs client for sandbox tooling (workload, scenarios); never used by the monitoring path. */
export function sandboxKafka(bootstrap: string, clientId = "gapwatch-sandbox"): Kafka {
  // A multi-broker cluster's bootstrap is a comma-separated list, as Kafka's bootstrap.servers.
  return new Kafka({ clientId, brokers: bootstrap.split(","), logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
}

/**
 * Creates topics that do not exist yet (replication factor 1 unless given) and waits until every
 * partition has a leader, polling Metadata: a broker can answer it before it has seen a new topic
 * (UNKNOWN_TOPIC_OR_PARTITION, which kafkajs's waitForLeaders does not retry), on several brokers and, on a
 * loaded machine, on one (the soak's first start failed so on 2026-12-07).
 */
export async function ensureTopics(bootstrap: string, topics: readonly TopicSpec[]): Promise<void> {
  const admin = sandboxKafka(bootstrap).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((t) => ({
          topic: t.topic,
          // Kafka takes either counts or an explicit assignment, not both.
          ...(t.replicaAssignment
            ? { replicaAssignment: t.replicaAssignment.map((replicas, partition) => ({ partition, replicas })) }
            : { numPartitions: t.partitions, replicationFactor: t.replicationFactor ?? 1 }),
          configEntries: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
        })),
      });
      await waitForLeaders(admin, missing);
    }
  } finally {
    await admin.disconnect();
  }
}

async function waitForLeaders(admin: Admin, topics: readonly TopicSpec[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) });
      const ready = topics.every((t) => {
        const parts = found.find((f) => f.name === t.topic)?.partitions ?? [];
        return parts.length === t.partitions && parts.every((p) => p.leader >= 0);
      });
      if (ready) return;
      last = "some partitions have no leader yet";
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`topics ${topics.map((t) => t.topic).join(", ")} have no leaders after ${timeoutMs / 1000}s: ${last}`);
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
