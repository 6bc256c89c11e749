import type { Consumer, Producer } from "kafkajs";
import { getLogger } from "@/lib/logger";
import { sandboxKafka, workloadTopics } from "./topics";

const log = getLogger("sandbox.workload");

/** What every workload record's value holds, so tests can tell exactly which records arrived. */
export interface WorkloadRecord {
  topic: string;
  partition: number;
  seq: number;
  run: string;
  at: number;
}

export interface WorkloadOptions {
  bootstrap: string;
  /** Records per second per topic (default 20). */
  ratePerSecond?: number;
  topics?: readonly { topic: string; partitions: number }[];
  /** Start the consumer groups (default true). */
  groups?: boolean;
  /** Identifies this run in each record (default: a time-based id). */
  run?: string;
}

export interface Workload {
  /** Records produced so far, per `topic/partition`. */
  produced(): Map<string, number>;
  stop(): Promise<void>;
}

/** Consumer groups the workload runs on the source cluster, so MM2 has groups to checkpoint. */
export const workloadGroups = {
  /** Keeps up with every topic. */
  fast: "gapwatch-fast",
  /** Processes one record at a time with a pause, so it falls far behind. */
  slow: "gapwatch-slow",
} as const;

/**
 * Runs producers on the workload topics at a steady rate (records spread round-robin over each
 * topic's partitions, a sequence number per partition) and the two consumer groups.
 */
export async function startWorkload(opts: WorkloadOptions): Promise<Workload> {
  const kafka = sandboxKafka(opts.bootstrap, "gapwatch-workload");
  const topics = opts.topics ?? workloadTopics;
  const rate = opts.ratePerSecond ?? 20;
  const run = opts.run ?? `run-${Date.now()}`;
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const counts = new Map<string, number>();
  let stopped = false;
  const tickMs = 200;
  const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
  const cursors = new Map<string, number>();
  const nextPartition = (topic: string, partitions: number) => {
    const next = cursors.get(topic) ?? 0;
    cursors.set(topic, next + 1);
    return next % partitions;
  };

  const timer = setInterval(() => {
    if (stopped) return;
    void produceTick(producer, topics, perTick, nextPartition, counts, run).catch((err: unknown) =>
      log.warn({ err: err instanceof Error ? err.message : String(err) }, "workload produce failed; retrying next tick"),
    );
  }, tickMs);

  const consumers: Consumer[] = [];
  if (opts.groups ?? true) {
    consumers.push(await startGroup(kafka, workloadGroups.fast, topics, 0));
    consumers.push(await startGroup(kafka, workloadGroups.slow, topics, 250));
  }
  log.info({ rate, topics: topics.map((t) => t.topic), run }, "workload started");

  return {
    produced: () => new Map(counts),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await producer.disconnect().catch(() => undefined);
      log.info("workload stopped");
    },
  };
}

async function produceTick(
  producer: Producer,
  topics: readonly { topic: string; partitions: number }[],
  perTick: number,
  nextPartition: (topic: string, partitions: number) => number,
  counts: Map<string, number>,
  run: string,
): Promise<void> {
  const topicMessages = topics.map(({ topic, partitions }) => {
    const messages = [];
    for (let i = 0; i < perTick; i++) {
      const partition = nextPartition(topic, partitions);
      const key = `${topic}/${partition}`;
      const seq = counts.get(key) ?? 0;
      counts.set(key, seq + 1);
      const value: WorkloadRecord = { topic, partition, seq, run, at: Date.now() };
      messages.push({ partition, key: String(seq), value: JSON.stringify(value) });
    }
    return { topic, messages };
  });
  await producer.sendBatch({ topicMessages, acks: -1 });
}

async function startGroup(
  kafka: ReturnType<typeof sandboxKafka>,
  groupId: string,
  topics: readonly { topic: string }[],
  delayPerRecordMs: number,
): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000, maxBytesPerPartition: delayPerRecordMs > 0 ? 2048 : 1_048_576 });
  await consumer.connect();
  await consumer.subscribe({ topics: topics.map((t) => t.topic), fromBeginning: true });
  await consumer.run({
    autoCommitInterval: 1000,
    eachMessage: async () => {
      if (delayPerRecordMs > 0) await new Promise((resolve) => setTimeout(resolve, delayPerRecordMs));
    },
  });
  return consumer;
}

/** Parses a workload record value; null when the bytes are not one (e.g. heartbeats). */
export function parseWorkloadRecord(value: Buffer | null): WorkloadRecord | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value.toString("utf8")) as Partial<WorkloadRecord>;
    if (typeof parsed.topic === "string" && typeof parsed.partition === "number" && typeof parsed.seq === "number" && typeof parsed.run === "string") {
      return parsed as WorkloadRecord;
    }
  } catch {
    // Not a workload record.
  }
  return null;
}
