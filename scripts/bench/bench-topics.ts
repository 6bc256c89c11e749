import type { Admin } from "kafkajs";
import { sleep } from "@/lib/sandbox/processes";
import { formatRemoteTopicName } from "@/lib/sandbox/remote-topic";
import { sandboxKafka } from "@/lib/sandbox/topics";

/** Partitions of every benchmark topic. */
export const partitionsPerBenchTopic = 50;
/** Topics per CreateTopics / DeleteTopics request (1,000 partitions). */
const topicsPerRequest = 20;

/**
 * `bench-50-0001`: the sandbox's source connector excludes `bench-.*`, so MM2 never copies these;
 * the benchmark's own STOPPED source connector (bench-connector.ts) puts them in the flow.
 */
export function nameBenchTopic(index: number): string {
  return `bench-${partitionsPerBenchTopic}-${String(index).padStart(4, "0")}`;
}

/** Admin clients of the flow's two clusters, for creating and deleting benchmark topics. */
export interface BenchTopicAdmins {
  source: Admin;
  target: Admin;
  sourceAlias: string;
  close(): Promise<void>;
}

export async function connectBenchAdmins(sourceAlias: string, sourceBootstrap: string, targetBootstrap: string): Promise<BenchTopicAdmins> {
  const source = sandboxKafka(sourceBootstrap, "gapwatch-bench-topics").admin();
  const target = sandboxKafka(targetBootstrap, "gapwatch-bench-topics").admin();
  await Promise.all([source.connect(), target.connect()]);
  return {
    source,
    target,
    sourceAlias,
    close: async () => {
      await Promise.allSettled([source.disconnect(), target.disconnect()]);
    },
  };
}

/**
 * Creates benchmark topics `fromIndex..toIndex-1` on the source and their remote twins
 * (`<source>.bench-…`) on the target, both clusters in parallel, 1,000 partitions per request.
 * Returns the wall time of the requests in milliseconds. The brokers take longer to serve the new
 * partitions (kafkajs' waitForLeaders gives up with UNKNOWN_TOPIC_OR_PARTITION meanwhile), so the
 * caller waits for offsets separately.
 */
export async function createBenchTopics(admins: BenchTopicAdmins, fromIndex: number, toIndex: number): Promise<number> {
  const started = performance.now();
  const names = Array.from({ length: toIndex - fromIndex }, (_, i) => nameBenchTopic(fromIndex + i));
  const create = async (admin: Admin, topics: string[]) => {
    for (let i = 0; i < topics.length; i += topicsPerRequest) {
      const batch = topics.slice(i, i + topicsPerRequest);
      await admin.createTopics({
        waitForLeaders: false,
        timeout: 180_000,
        topics: batch.map((topic) => ({ topic, numPartitions: partitionsPerBenchTopic, replicationFactor: 1 })),
      });
    }
  };
  await Promise.all([create(admins.source, names), create(admins.target, names.map((n) => formatRemoteTopicName(admins.sourceAlias, n)))]);
  return performance.now() - started;
}

/** Deletes every topic whose name matches on both clusters (benchmark and throwaway topics). Returns ms. */
export async function deleteTopicsMatching(admins: BenchTopicAdmins, matches: (topic: string) => boolean): Promise<number> {
  const started = performance.now();
  const drop = async (admin: Admin) => {
    const topics = (await admin.listTopics()).filter(matches);
    for (let i = 0; i < topics.length; i += topicsPerRequest * 2) {
      await admin.deleteTopics({ topics: topics.slice(i, i + topicsPerRequest * 2), timeout: 180_000 });
    }
    // The controller answers before every broker has forgotten the topics: wait until metadata agrees.
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline && (await admin.listTopics()).some(matches)) await sleep(1000);
  };
  await Promise.all([drop(admins.source), drop(admins.target)]);
  return performance.now() - started;
}

/** True for the topics `npm run bench` creates on either cluster. */
export function isBenchTopic(sourceAlias: string, topic: string): boolean {
  return topic.startsWith("bench-") || topic.startsWith(formatRemoteTopicName(sourceAlias, "bench-")) || /(^|\.)latency-reset-\d+$/.test(topic);
}
