import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { getMirrorSourceOffsets, putConnectorConfig, resumeConnector, stopConnector } from "@/lib/connect";
import { connectorNames, sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { allTasks, waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * An operator narrows MM2's topic filter (`topics.exclude` gains a topic), later purges that
 * topic's old records, then widens the filter again — for real, against the sandbox's MM2:
 * the topic leaves the flow with exactly one TOPIC_LEFT_FLOW (info), the purge raises neither
 * DATA_LOSS nor TASK_STALLED over a run longer than the stall threshold (15 s here), and after
 * widening the topic rejoins and the records produced and deleted meanwhile are a real hole on the
 * target: DATA_LOSS with the exact range Kafka shows.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state, 5, { stallAfterMs: 15_000 });
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const connector = connectorNames("east", "west").source;
const flowClusters = { source: { alias: "east", bootstrap: east }, target: { alias: "west", bootstrap: west } };
const topic = `filtertest-${randomUUID().slice(0, 8)}`;
const partitions = [0, 1];

async function produce(count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  for (const partition of partitions) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, seq }) })) });
  }
  await producer.disconnect();
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeTopic });

/** Connect's stored position (offset + 1) per partition of the test topic. */
async function readCommitted(): Promise<Map<number, bigint>> {
  const offsets = await getMirrorSourceOffsets(endpoint, connector);
  return new Map(offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset + 1n]));
}

/** The test topic's partitions in the flow, for failure messages. */
function describeTopic(s: Snapshot): string {
  const rows = s.flows.flatMap((f) => f.partitions.filter((p) => p.topic === topic));
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

const inFlow = (s: Snapshot): number => s.flows.find((f) => f.id === "east->west")?.partitions.filter((p) => p.topic === topic).length ?? 0;
const alertsOf = (type: string): AlertRecord[] => runtime.alerts.list({ type }).filter((a) => a.topic === topic);

/**
 * Replaces the source connector's config and waits until Connect runs it. Narrowing goes through
 * STOPPED (KIP-875: no task left) so no task of the old config copies what is produced next.
 */
async function reconfigure(extra: Record<string, string>, viaStopped: boolean): Promise<void> {
  if (viaStopped) {
    await stopConnector(endpoint, connector);
    await waitForConnector(endpoint, connector, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED", 60_000);
  }
  await putConnectorConfig(endpoint, connector, sourceConnectorConfig(flowClusters, extra));
  if (viaStopped) await resumeConnector(endpoint, connector);
  await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING", 60_000);
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  await produce(20);
  await cycleUntil((s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n).length === 2, `${topic} replicated`);
  // Connect flushes MM2's offsets every 5 s in the sandbox: wait until both partitions are stored.
  const deadline = Date.now() + 30_000;
  while ([...(await readCommitted()).values()].filter((p) => p === 20n).length < 2) {
    if (Date.now() > deadline) throw new Error(`Connect never stored MM2's position 20 for both partitions of ${topic}`);
    await sleep(1000);
  }
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("MM2's topic filter narrowed, the topic purged, the filter widened", () => {
  it("leaves the flow with one TOPIC_LEFT_FLOW, stays quiet while purged, and rejoins with the exact hole as DATA_LOSS", async () => {
    const defaultExclude = sourceConnectorConfig(flowClusters)["topics.exclude"];
    try {
      await reconfigure({ "topics.exclude": `${defaultExclude}, ${topic}` }, true);
      await cycleUntil((s) => inFlow(s) === 0, `${topic} to leave the flow`);
      expect(alertsOf("TOPIC_LEFT_FLOW").map((a) => [a.severity, a.state, a.summary])).toEqual([
        ["info", "firing", `${topic} left the flow east->west: excluded by topics.exclude; Connect still holds MM2's offsets for 2 partitions`],
      ]);

      // Records MM2 no longer copies, then deleted at the source (old records purged).
      await produce(30);
      const admin = sandboxKafka(east).admin();
      await admin.connect();
      // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first (Kafka 4.3).
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: partitions.map((partition) => ({ partition, offset: "50" })) });
      await admin.disconnect();
      expect([...(await fetchLogEnds(east, topic)).values()]).toEqual([
        { low: 50n, high: 50n },
        { low: 50n, high: 50n },
      ]);

      // Longer than stallAfterMs (15 s): nothing about the topic fires, and it stays out of the flow.
      const until = Date.now() + 22_000;
      while (Date.now() < until) {
        const snapshot = await runtime.collector.runCycle();
        expect(inFlow(snapshot)).toBe(0);
        await sleep(2000);
      }
      expect(alertsOf("DATA_LOSS")).toEqual([]);
      // One TASK_STALLED per flow names its partitions in the evidence.
      expect(runtime.alerts.list({ type: "TASK_STALLED" }).filter((a) => String(a.evidence.partitions).includes(topic))).toEqual([]);
      expect(alertsOf("TOPIC_LEFT_FLOW")).toHaveLength(1);
    } finally {
      await reconfigure({}, false);
    }

    // Widened again: the topic rejoins; MM2 resumes from Connect's position, below the new log start.
    // What the target holds (read with kafkajs) and the source's log start give the exact hole.
    const copied = await fetchLogEnds(west, `east.${topic}`);
    expect([...copied.values()].map((e) => e.high)).toEqual([20n, 20n]);
    await cycleUntil((s) => inFlow(s) === 2, `${topic} to rejoin the flow`);
    await cycleUntil(() => alertsOf("DATA_LOSS").length === 2, `DATA_LOSS on both partitions of ${topic}`);
    const ends = await fetchLogEnds(east, topic);
    for (const partition of partitions) {
      const first = copied.get(partition)!.high;
      const start = ends.get(partition)!.low;
      const loss = alertsOf("DATA_LOSS").find((a) => a.partition === partition);
      expect(loss?.evidence).toMatchObject({ firstLostOffset: first.toString(), lastLostOffset: (start - 1n).toString(), lostCount: (start - first).toString() });
      expect(loss?.evidence.lostCount).toBe("30");
    }
    expect(alertsOf("TOPIC_LEFT_FLOW")).toHaveLength(1);

    // Leave the topic caught up past the hole, so later files' fresh runtimes see no loss in progress.
    await produce(5);
    await cycleUntil((s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.mm2Position === 55n && p.lag === 0n).length === 2, `${topic} caught up`);
  });
});
