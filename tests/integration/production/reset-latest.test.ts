import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, pauseConnector, putConnectorConfig, resumeConnector } from "@/lib/connect";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers, waitForTasksPaused } from "../support/runtime";

/**
 * MM2 with `consumer.auto.offset.reset=latest` (honoured by MirrorSourceTask since Kafka 3.7), on a second flow
 * west -> east of the shared sandbox copying one topic: MM2 copies 0..99 and is paused; 200 more records are written
 * (100..299) and offsets 100..149 purged (DeleteRecords). Resumed, MM2's position 100 is out of range and its consumer
 * jumps to the log END (300): 100..149 were deleted before MM2 copied them (DATA_LOSS) and 150..299 still exist but are
 * skipped on purpose (MM2_SKIPPED_BY_RESET). Ground truth from record contents read with Kafka's ConsoleConsumer.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
const FLOW_ID = "west->east";
const topic = `reset-latest-${randomUUID().slice(0, 8)}`;
const connector = "h70-mm2-west-east-latest";

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });
const row = (s: Snapshot) => s.flows.find((f) => f.id === FLOW_ID)?.partitions.find((p) => p.topic === topic && p.partition === 0);

async function produce(from: number, count: number): Promise<void> {
  const producer = sandboxKafka(west).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `latest-${from + i}` })) });
  await producer.disconnect();
}

beforeAll(async () => {
  await ensureTopics(west, [{ topic, partitions: 1 }]);
  const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
  await putConnectorConfig(endpoint, connector, sourceConnectorConfig({ source: cluster("west"), target: cluster("east") }, {
    topics: topic,
    "consumer.auto.offset.reset": "latest",
    // The sandbox worker runs on west: its producer must be pointed at east.
    "producer.override.bootstrap.servers": east,
  }));
}, 60_000);

afterAll(async () => {
  await deleteConnector(endpoint, connector).catch(() => undefined);
  await deleteLeftovers([{ bootstrap: west, topics: [topic] }, { bootstrap: east, topics: [`west.${topic}`, "west.heartbeats"] }]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("MM2 with consumer.auto.offset.reset=latest after a purge past its position", () => {
  it("reports the deleted offsets as DATA_LOSS and the existing ones it jumped over as MM2_SKIPPED_BY_RESET, exactly", { timeout: 420_000 }, async () => {
    // MM2 picks the empty topic up first (latest of an empty log is 0: its task polls before anything is written),
    // then copies 0..99.
    await waitForConnectorsRunning(endpoint, [connector], 120_000);
    await sleep(5000);
    await cycleUntil((s) => row(s) !== undefined, `${topic} in the flow ${FLOW_ID}`);
    await produce(0, 100);
    await cycleUntil((s) => row(s)?.mm2Position === 100n && row(s)?.targetLogEnd === 100n, `${topic} 0..99 copied and flushed`);
    await pauseConnector(endpoint, connector);
    // Connect answers the pause at once; the task stops polling only when its thread sees it (status PAUSED).
    await waitForTasksPaused(endpoint, connector);
    await produce(100, 200);
    const admin = sandboxKafka(west).admin();
    await admin.connect();
    // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first.
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: "150" }] });
    await admin.disconnect();
    await cycleUntil((s) => row(s)?.sourceLogStart === 150n, "the purge seen by Gapwatch");
    await resumeConnector(endpoint, connector);
    // Written only once MM2 has reset to the log end (300): written before, they would be skipped too.
    await sleep(8000);
    await produce(300, 20);
    await cycleUntil((s) => row(s)?.mm2Position === 320n && row(s)?.targetLogEnd === 120n, "MM2 resumed at the log end and copied 300..319");
    for (let i = 0; i < 3; i++) await runtime.collector.runCycle();

    // Ground truth: the target holds 0..99 then 300..319; the source still holds 150..299.
    const target = await readPartition(state, east, `west.${topic}`, 0, 0n, 120);
    expect(target.map((r) => r.value)).toEqual([...Array.from({ length: 100 }, (_, i) => `latest-${i}`), ...Array.from({ length: 20 }, (_, i) => `latest-${300 + i}`)]);
    const stillAtSource = await readPartition(state, west, topic, 0, 150n, 150);
    expect(stillAtSource.map((r) => r.value)).toEqual(Array.from({ length: 150 }, (_, i) => `latest-${150 + i}`));
    expect((await fetchLogEnds(west, topic)).get(0)).toMatchObject({ low: 150n, high: 320n });

    const alerts = runtime.alerts.list({ flow: FLOW_ID }).filter((a) => a.topic === topic);
    const described = alerts.map((a) => [a.type, a.evidence.firstLostOffset ?? a.evidence.firstSkippedOffset, a.evidence.lastLostOffset ?? a.evidence.lastSkippedOffset]);
    expect(described.sort()).toEqual([
      ["DATA_LOSS", "100", "149"],
      ["MM2_SKIPPED_BY_RESET", "150", "299"],
    ]);
    expect(alerts.find((a) => a.type === "MM2_SKIPPED_BY_RESET")?.evidence).toMatchObject({ skippedCount: "150", exact: true });
  });
});
