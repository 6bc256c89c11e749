import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";

/**
 * Replication from latest (Kafka's MirrorConnectorsIntegrationBaseTest.testReplicateFromLatest): a
 * MirrorSourceConnector with `consumer.auto.offset.reset=latest` created on a topic that already holds 100 records
 * copies only what is written after it starts; a partition added later is picked up at MM2's next topic refresh, at
 * its log end, so what was written to it before is never copied either. Both are on purpose and never DATA_LOSS:
 * Gapwatch reports each once as MM2_SKIPPED_BY_RESET with the exact range, read against the target's records (by
 * value, with Kafka's ConsoleConsumer) — and nothing else for the topic. A second flow west -> east of the shared
 * sandbox, with its own connector.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
const FLOW_ID = "west->east";
const topic = `from-latest-${randomUUID().slice(0, 8)}`;
const remote = `west.${topic}`;
const connector = `mm2-west-east-from-latest-${topic.slice(-8)}`;

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) =>
  cycleUntilSeen(runtime.collector, check, what, { timeoutMs });
const row = (s: Snapshot, partition: number) =>
  s.flows.find((f) => f.id === FLOW_ID)?.partitions.find((p) => p.topic === topic && p.partition === partition);
const valueOf = (partition: number, i: number) => `from-latest-p${partition}-${i}`;
const alertsOfTopic = (): AlertRecord[] => runtime.alerts.list({ flow: FLOW_ID }).filter((a) => a.topic === topic);

async function produce(partition: number, from: number, count: number): Promise<void> {
  const producer = sandboxKafka(west).producer();
  await producer.connect();
  const messages = Array.from({ length: count }, (_, i) => ({ partition, value: valueOf(partition, from + i) }));
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}

beforeAll(async () => {
  await ensureTopics(west, [{ topic, partitions: 1 }]);
  await produce(0, 0, 100);
  // Gapwatch knows the topic before MM2 exists: its first cycle after the connector sees the flow appear.
  await runtime.collector.runCycle();
}, 60_000);

afterAll(async () => {
  await deleteConnector(endpoint, connector).catch(() => undefined);
  await deleteLeftovers([{ bootstrap: west, topics: [topic] }, { bootstrap: east, topics: [remote] }]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("MirrorMaker 2 replicating from latest", () => {
  it("reports the records it never copied, on purpose, exactly and once: at its start and for a partition added later", { timeout: 420_000 }, async () => {
    const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
    await putConnectorConfig(endpoint, connector, sourceConnectorConfig({ source: cluster("west"), target: cluster("east") }, {
      topics: topic,
      "consumer.auto.offset.reset": "latest",
      // Long enough to write to a new partition before MM2 finds it.
      "refresh.topics.interval.seconds": "20",
      // The sandbox worker runs on west: its producer must be pointed at east.
      "producer.override.bootstrap.servers": east,
    }));
    await waitForConnectorsRunning(endpoint, [connector], 120_000);
    // MM2's consumer starts at the log end once its task first polls, some seconds after RUNNING: records written
    // meanwhile are skipped too. So a few are written each second until MM2 copies some; where it began (u0) is read
    // from the target's first record below, not assumed.
    let end0 = 100;
    await writeUntil(0, () => end0, (n) => (end0 += n), "MM2 copying partition 0");
    await cycleUntil((s) => row(s, 0)?.mm2Position === BigInt(end0), `${topic}/0 copied to its log end ${end0}`);

    const admin = sandboxKafka(west).admin();
    await admin.connect();
    await admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] });
    await admin.disconnect();
    // Written before MM2's next topic refresh (20 s) finds the new partition: never copied.
    let end1 = 0;
    await produce(1, 0, 30);
    end1 = 30;
    await cycleUntil((s) => row(s, 1) !== undefined, `${topic}/1 in the flow`);
    await writeUntil(1, () => end1, (n) => (end1 += n), "MM2 copying partition 1");
    await cycleUntil((s) => row(s, 1)?.mm2Position === BigInt(end1), `${topic}/1 copied to its log end ${end1}`);
    for (let i = 0; i < 3; i++) await runtime.collector.runCycle();

    // Ground truth: the source holds every record from offset 0; the target holds u..end of each partition.
    const u0 = await readCopiedFrom(0, end0);
    const u1 = await readCopiedFrom(1, end1);
    expect(u0).toBeGreaterThanOrEqual(100);
    expect(u1).toBeGreaterThanOrEqual(30);

    const described = alertsOfTopic().map((a) => [
      a.type, a.partition, a.evidence.firstSkippedOffset, a.evidence.lastSkippedOffset, a.evidence.exact, a.evidence.detectedBy,
    ]);
    expect(described.sort()).toEqual([
      ["MM2_SKIPPED_BY_RESET", 0, "0", String(u0 - 1), true, "started-at-log-end"],
      ["MM2_SKIPPED_BY_RESET", 1, "0", String(u1 - 1), true, "started-at-log-end"],
    ]);
    const [first] = alertsOfTopic().filter((a) => a.partition === 0);
    expect(first).toMatchObject({ severity: "warning", state: "firing" });
    expect(first!.evidence.skippedCount).toBe(String(u0));
  });
});

/** Writes 5 records a second to `partition` until Gapwatch sees MM2 copy some (the target partition grows). */
async function writeUntil(partition: number, end: () => number, wrote: (n: number) => void, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    await produce(partition, end(), 5);
    wrote(5);
    const snapshot = await runtime.collector.runCycle();
    if ((row(snapshot, partition)?.targetLogEnd ?? 0n) > 0n) return;
    if (Date.now() > deadline) throw new Error(`timed out after 120 s waiting for ${what}`);
    await sleep(1000);
  }
}

/**
 * Where MM2 began on `partition`: the source offset of the target's first record (values are unique), after checking
 * that the source still holds every offset from 0 and that the target holds exactly u..end − 1, in order.
 */
async function readCopiedFrom(partition: number, end: number): Promise<number> {
  expect((await fetchLogEnds(west, topic)).get(partition)).toEqual({ low: 0n, high: BigInt(end) });
  const [firstCopied] = await readPartition(state, east, remote, partition, 0n, 1);
  const u = Number(firstCopied!.value.split("-").at(-1));
  const copied = await readPartition(state, east, remote, partition, 0n, end - u);
  expect(copied.map((r) => r.value)).toEqual(Array.from({ length: end - u }, (_, i) => valueOf(partition, u + i)));
  return u;
}
