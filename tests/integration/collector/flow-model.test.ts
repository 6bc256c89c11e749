import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getFlow } from "@/app/api/flows/[flow]/route";
import { GET as getHealth } from "@/app/api/health/route";
import type { Snapshot } from "@/lib/collector/types";
import { restartConnector } from "@/lib/connect";
import { restartBroker, stopBroker } from "@/lib/sandbox/broker-control";
import { describeTopicIds, runKafkaTool, topicIdToHex } from "@/lib/sandbox/kafka-cli";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state);
const flowParam = encodeURIComponent("east->west");

interface PartitionRow { topic: string; partition: number; lag: string | null; sourceLogEnd: string; targetLogEnd: string | null; mm2Position: string | null }

async function readFlowRows(topic: string): Promise<PartitionRow[]> {
  // The list is paginated (200 rows by default, largest lag first): ask for the topic's rows by name.
  const { status, body } = await callRoute(getFlow, `/api/flows/${flowParam}?q=${topic}&sort=topic`, { flow: flowParam });
  expect(status).toBe(200);
  return (body.partitions as PartitionRow[]).filter((r) => r.topic === topic);
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

async function produce(topic: string, counts: number[]): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: counts.flatMap((n, partition) => Array.from({ length: n }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, seq }) }))) });
  await producer.disconnect();
}

afterAll(async () => {
  await runtime.collector.stop();
  await runtime.store.close();
});

describe("the collector's flow model matches Kafka to the offset", () => {
  const topic = `lagtest-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await ensureTopics(east, [{ topic, partitions: 3 }]);
    await produce(topic, [1, 1, 1]);
    // MM2 finds the topic (refresh every 5 s), creates east.<topic> and copies the first records.
    await cycleUntil((s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 1n).length === 3, `${topic} replicated`);
  });

  it("reports lag equal to the records produced per partition while MM2 is paused, and 0 after resuming", async () => {
    await runLag(state, { seconds: 0 });
    try {
      const counts = [10, 25, 40];
      await produce(topic, counts);
      await runtime.collector.runCycle();
      const rows = await readFlowRows(topic);
      expect(rows.map((r) => r.lag)).toEqual(counts.map(String));
      const source = await fetchLogEnds(east, topic);
      expect(rows.map((r) => r.sourceLogEnd)).toEqual([0, 1, 2].map((p) => source.get(p)!.high.toString()));
    } finally {
      await runResume(state);
    }
    await cycleUntil((s) => s.flows[0]!.partitions.filter((p) => p.topic === topic).every((p) => p.lag === 0n && p.targetLogEnd === p.sourceLogEnd), "lag back to 0");
    const rows = await readFlowRows(topic);
    const target = await fetchLogEnds(west, `east.${topic}`);
    expect(rows.map((r) => r.lag)).toEqual(["0", "0", "0"]);
    expect(rows.map((r) => r.targetLogEnd)).toEqual([0, 1, 2].map((p) => target.get(p)!.high.toString()));
    expect(rows.map((r) => r.targetLogEnd)).toEqual(rows.map((r) => r.sourceLogEnd));
  });

  it("reads topic IDs, leader epochs, configs and group offsets exactly as Kafka reports them", async () => {
    const configured = `configs-${randomUUID().slice(0, 8)}`;
    await ensureTopics(east, [{ topic: configured, partitions: 1, configs: { "retention.ms": "123456", "cleanup.policy": "compact" } }]);
    const group = `it-group-${randomUUID().slice(0, 8)}`;
    const consumer = sandboxKafka(east).consumer({ groupId: group });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommit: true, autoCommitInterval: 100, eachMessage: async () => void seen++ });
    while (seen < 78) await sleep(200);
    await consumer.disconnect();

    const snapshot = await runtime.collector.runCycle();
    const eastSnap = snapshot.clusters.find((c) => c.alias === "east")!;
    const ids = await describeTopicIds(state, east, [topic, configured, "orders"]);
    for (const [name, base64] of ids) expect(eastSnap.topics.find((t) => t.name === name)?.topicId).toBe(topicIdToHex(base64));

    // Leader epoch: the epoch Kafka stamped on the newest batch of orders-0's log segment.
    const dump = await runKafkaTool(state, "org.apache.kafka.tools.DumpLogSegments", ["--files", `${sandboxDir}/east/log/${topic}-0/00000000000000000000.log`]);
    const epochs = [...dump.matchAll(/partitionLeaderEpoch: (\d+)/g)].map((m) => Number(m[1]));
    expect(epochs.length).toBeGreaterThan(0);
    expect(eastSnap.topics.find((t) => t.name === topic)!.partitions[0]!.leaderEpoch).toBe(epochs.at(-1));

    const configs = eastSnap.topics.find((t) => t.name === configured)!.configs!;
    expect(configs.retentionMs).toBe(123456n);
    expect(configs.cleanupPolicy).toBe("compact");
    expect(configs.uncleanLeaderElection).toBe(false);

    const described = await runKafkaTool(state, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--bootstrap-server", east, "--describe", "--group", group]);
    const fromKafka = new Map(described.split("\n").map((l) => l.trim().split(/\s+/)).filter((c) => c[0] === group).map((c) => [Number(c[2]), BigInt(c[3]!)]));
    const g = eastSnap.groups.find((x) => x.groupId === group)!;
    expect(new Map(g.offsets.map((o) => [o.partition, o.offset]))).toEqual(fromKafka);
    expect(g.offsets.every((o) => o.committedLeaderEpoch === -1)).toBe(true);
  });

  it("sends one Metadata and at most two ListOffsets per broker per cycle, whatever the topic count", async () => {
    await ensureTopics(east, Array.from({ length: 25 }, (_, i) => ({ topic: `many-${i}-${randomUUID().slice(0, 6)}`, partitions: 4 })));
    await runtime.collector.runCycle();
    runtime.collector.resetRequestCounts();
    await runtime.collector.runCycle();
    for (const [alias, counts] of Object.entries(runtime.collector.readRequestCounts())) {
      const metadata = counts.filter((c) => c.api === "Metadata").reduce((s, c) => s + c.count, 0);
      const listOffsets = counts.filter((c) => c.api === "ListOffsets");
      process.stdout.write(`[requests] ${alias}: ${counts.map((c) => `${c.api}@${c.broker}=${c.count}`).join(" ")}\n`);
      expect(metadata, `${alias} Metadata requests`).toBe(1);
      for (const c of listOffsets) expect(c.count, `${alias} ListOffsets to broker ${c.broker}`).toBeLessThanOrEqual(2);
    }
  });

  it("keeps answering when a broker stops: the cluster is unreachable with stale data and its age, then recovers by itself", async () => {
    const before = await runtime.collector.runCycle();
    const lastGood = before.clusters.find((c) => c.alias === "west")!.dataAt;
    await stopBroker("west");
    try {
      const down = await runtime.collector.runCycle();
      const west = down.clusters.find((c) => c.alias === "west")!;
      expect(west.reachable).toBe(false);
      expect(west.stale).toBe(true);
      expect(west.dataAt).toBe(lastGood);
      expect(west.error).toMatch(/west/);
      expect(west.topics.length).toBeGreaterThan(0);
      expect(down.clusters.find((c) => c.alias === "east")!.reachable).toBe(true);
      const health = await callRoute(getHealth, "/api/health", {});
      expect(health.status).toBe(200);
      expect(health.body.status).toBe("degraded");
      const clusters = health.body.clusters as { alias: string; reachable: boolean; dataAgeMs: number }[];
      expect(clusters.find((c) => c.alias === "west")).toMatchObject({ reachable: false });
      expect(clusters.find((c) => c.alias === "west")!.dataAgeMs).toBeGreaterThan(0);
      expect((await callRoute(getFlow, `/api/flows/${flowParam}`, { flow: flowParam })).status).toBe(200);
    } finally {
      await restartBroker(state, "west");
      // Connect keeps its own topics on west: wait until it and MM2 run again before other tests.
      await restartConnector({ url: state.connect.url }, "mm2-east-west-source").catch(() => undefined);
      await waitUntilReplicating(state);
    }
    const recovered = await cycleUntil((s) => s.clusters.every((c) => c.reachable && !c.stale), "west reachable again", 120_000);
    expect(recovered.clusters.find((c) => c.alias === "west")!.dataAt).toBe(recovered.takenAt);
  });
});
