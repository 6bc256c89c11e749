// The soak's own traffic next to the demo workload: a plain producer on the soak topics and a
// transactional producer (committed and aborted transactions, then idle for longer than the stall
// threshold, over and over).
import type { Consumer, Producer } from "kafkajs";
import { sleep } from "@/lib/sandbox/processes";
import { sandboxKafka } from "@/lib/sandbox/topics";

/** Topics the soak creates on the source, besides the workload's. */
export const soakTopics = {
  /** Short time retention: RETENTION_RISK is forecast while MM2 stands still. */
  retention: { topic: "soak-retention", partitions: 2, configs: { "retention.ms": "600000" } },
  /** Its partition count grows during the run. */
  grow: { topic: "soak-grow", partitions: 2, configs: {} },
  /** Leaves MM2's topic filter and comes back. */
  filter: { topic: "soak-filter", partitions: 2, configs: {} },
  /** Written by the transactional producer only. */
  transactions: { topic: "soak-tx", partitions: 2, configs: {} },
  /** Written only by purge events (nothing in flight when MM2 pauses, so the lost range is exact). */
  purge: { topic: "soak-purge", partitions: 3, configs: {} },
  /** Written only by offset-move events. */
  moved: { topic: "soak-moved", partitions: 1, configs: {} },
  /** Written only by stall events (MM2 stalls on it with auto.offset.reset=none after a purge). */
  stall: { topic: "soak-stall", partitions: 1, configs: {} },
} as const;

/**
 * Topics only events write: each partition gets one record before the events start, so MM2 has a
 * committed offset for every partition it copies (a stall event runs it with auto.offset.reset=none).
 */
export const eventOnlyTopics = [soakTopics.purge, soakTopics.moved, soakTopics.stall] as const;

/** Plain topics the steady producer writes, with their current partition counts. */
export type PartitionCounts = Map<string, number>;

export interface SoakTraffic {
  partitions: PartitionCounts;
  /** Starts a consumer group that reads `topic` from the beginning and commits every second, until stop(). */
  startGroup(groupId: string, topic: string): Promise<void>;
  /** Errors the producers retried past (transient broker errors never stop the soak). */
  errors(): string[];
  stop(): Promise<void>;
}

export interface TransactionTiming {
  activeMs: number;
  idleMs: number;
  /** Called at the end of each idle period of the transactional producer. */
  onIdle: (from: number, to: number) => void;
}

/**
 * Writes one record to each partition of the event-only topics, then starts one record per second
 * per partition on the plain soak topics, and the transactional producer: a transaction a second
 * while active (every fourth aborted), then idle.
 */
export async function startSoakTraffic(bootstrap: string, run: string, timing: TransactionTiming): Promise<SoakTraffic> {
  const kafka = sandboxKafka(bootstrap, "gapwatch-soak");
  const errors: string[] = [];
  const note = (what: string, err: unknown) => {
    if (errors.length < 200) errors.push(`${new Date().toISOString()} ${what}: ${err instanceof Error ? err.message : String(err)}`);
  };
  const partitions: PartitionCounts = new Map([soakTopics.retention, soakTopics.grow, soakTopics.filter].map((t) => [t.topic, t.partitions]));
  // Metadata refreshed every 5 s: a partition added during the run gets records within seconds.
  const plain = kafka.producer({ allowAutoTopicCreation: false, metadataMaxAge: 5000 });
  await plain.connect();
  await plain.sendBatch({
    acks: -1,
    topicMessages: eventOnlyTopics.map(({ topic, partitions: count }) => ({
      topic,
      messages: Array.from({ length: count }, (_, partition) => ({ partition, value: JSON.stringify({ topic, partition, seq: 0, run, seed: true }) })),
    })),
  });
  const tx = kafka.producer({ transactionalId: `gapwatch-soak-${run}`, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await tx.connect();
  let stopped = false;
  const seq = new Map<string, number>();
  const nextSeq = (key: string) => {
    const n = seq.get(key) ?? 0;
    seq.set(key, n + 1);
    return n;
  };

  const plainLoop = (async () => {
    while (!stopped) {
      const topicMessages = [...partitions].map(([topic, count]) => ({
        topic,
        messages: Array.from({ length: count }, (_, partition) => ({ partition, value: JSON.stringify({ topic, partition, seq: nextSeq(`${topic}/${partition}`), run, at: Date.now() }) })),
      }));
      await plain.sendBatch({ topicMessages, acks: -1 }).catch((err: unknown) => note("plain produce", err));
      await sleep(1000);
    }
  })();
  const txLoop = runTransactions(tx, run, timing, () => stopped, note, nextSeq);
  const consumers: Consumer[] = [];

  return {
    partitions,
    async startGroup(groupId, topic) {
      const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({ autoCommitInterval: 1000, eachMessage: async () => undefined });
    },
    errors: () => [...errors],
    async stop() {
      stopped = true;
      await Promise.allSettled([plainLoop, txLoop]);
      await Promise.allSettled([plain.disconnect(), tx.disconnect(), ...consumers.map((c) => c.disconnect())]);
    },
  };
}

async function runTransactions(
  producer: Producer,
  run: string,
  timing: TransactionTiming,
  isStopped: () => boolean,
  note: (what: string, err: unknown) => void,
  nextSeq: (key: string) => number,
): Promise<void> {
  const { topic, partitions } = soakTopics.transactions;
  let n = 0;
  while (!isStopped()) {
    const activeUntil = Date.now() + timing.activeMs;
    while (!isStopped() && Date.now() < activeUntil) {
      const abort = n++ % 4 === 3;
      try {
        const transaction = await producer.transaction();
        try {
          const messages = Array.from({ length: partitions * 2 }, (_, i) => {
            const partition = i % partitions;
            return { partition, value: JSON.stringify({ topic, partition, seq: nextSeq(`${topic}/${partition}`), run, aborted: abort, at: Date.now() }) };
          });
          await transaction.send({ topic, acks: -1, messages });
          await (abort ? transaction.abort() : transaction.commit());
        } catch (err) {
          await transaction.abort().catch(() => undefined);
          throw err;
        }
      } catch (err) {
        note("transaction", err);
      }
      await sleep(1000);
    }
    const idleFrom = Date.now();
    while (!isStopped() && Date.now() - idleFrom < timing.idleMs) await sleep(500);
    if (!isStopped()) timing.onIdle(idleFrom, Date.now());
  }
}
