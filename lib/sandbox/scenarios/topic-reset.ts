import { describeTopicIds } from "../kafka-cli";
import { sleep } from "../processes";
import { bootstrapOf, type SandboxState } from "../state";
import { fetchLogEnds, sandboxKafka } from "../topics";

export interface TopicResetOptions {
  source?: string;
  topic?: string;
  /** Records produced into the recreated topic (default 30). */
  records?: number;
  /** Runs once the topic is gone and before it is created again (a test polls a cycle that sees it absent). */
  whileDeleted?: () => Promise<void>;
}

export interface TopicResetReport {
  scenario: "topic-reset";
  topic: string;
  partitions: number;
  /** As Kafka's TopicCommand prints them (base64url). */
  oldTopicId: string;
  newTopicId: string;
  logEndsBefore: Record<number, string>;
  recordsAfter: number;
  /** When the topic was deleted (epoch ms): from then on MM2 and Gapwatch can see the reset. */
  faultAt: number;
}

/**
 * A source topic deleted and recreated while MM2 runs: same name and partition count, new topic
 * ID, log ends back at 0. MM2's consumer then resets to the earliest offset of the new topic.
 */
export async function runTopicReset(state: SandboxState, opts: TopicResetOptions = {}): Promise<TopicResetReport> {
  const topic = opts.topic ?? "payments";
  const records = opts.records ?? 30;
  const bootstrap = bootstrapOf(state, opts.source ?? "east");
  const before = await fetchLogEnds(bootstrap, topic);
  const partitions = before.size;
  const oldTopicId = (await describeTopicIds(state, bootstrap, [topic])).get(topic);
  if (!oldTopicId) throw new Error(`topic ${topic} does not exist on ${bootstrap}`);

  const kafka = sandboxKafka(bootstrap, "gapwatch-scenario-topic-reset");
  let faultAt = 0;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic], timeout: 30_000 });
    faultAt = Date.now();
    await waitUntil(async () => !(await admin.listTopics()).includes(topic), `${topic} to be deleted`);
    await opts.whileDeleted?.();
    await waitUntil(async () => {
      try {
        if (await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: false })) return true;
      } catch {
        return false; // Still marked for deletion: retry.
      }
      // "Already exists": an earlier attempt that timed out under load may have created it after all.
      const id = (await describeTopicIds(state, bootstrap, [topic])).get(topic);
      return id !== undefined && id !== oldTopicId;
    }, `${topic} to be recreated`);
    await waitUntil(async () => {
      try {
        const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
        return metadata !== undefined && metadata.partitions.length === partitions && metadata.partitions.every((p) => p.leader >= 0);
      } catch {
        return false; // Not in the metadata yet.
      }
    }, `leaders for the partitions of the recreated ${topic}`);
  } finally {
    await admin.disconnect();
  }
  // Idempotent: a send retried after a timeout under load must not write its batch twice (seen in CI:
  // 10 records of partition 0 twice, 50 instead of 30).
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: records }, (_, i) => ({ partition: i % partitions, value: JSON.stringify({ topic, partition: i % partitions, seq: i, run: "topic-reset", at: Date.now() }) })),
  });
  await producer.disconnect();
  const newTopicId = (await describeTopicIds(state, bootstrap, [topic])).get(topic) ?? "";
  return {
    scenario: "topic-reset",
    topic,
    partitions,
    oldTopicId,
    newTopicId,
    logEndsBefore: Object.fromEntries([...before].map(([p, o]) => [p, o.high.toString()])),
    recordsAfter: records,
    faultAt,
  };
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(500);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}
