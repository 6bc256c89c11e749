import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { alterMirrorSourceOffsets, deleteConnector, pauseConnector, putConnectorConfig, resumeConnector, stopConnector } from "@/lib/connect";
import { restartConnectWorker, stopConnectWorker } from "@/lib/sandbox/connect-control";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { connectorNames, exactlyOnceSourceConfig, sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers, waitUntilReplicating } from "../support/runtime";

/**
 * Kafka's own MM2 look-alike (MirrorConnectorsIntegrationExactlyOnceTest, KIP-618 with KIP-875's offsets API): MM2's
 * MirrorSourceConnector running exactly-once on a worker with `exactly.once.source.support=enabled`, copying under
 * traffic, then STOPPED, its offsets altered with `PATCH /connectors/{name}/offsets` (one partition back, one
 * forward) and resumed. MM2 copies the range moved back over again and never copies the range moved forward over:
 * both are an operator's move, reported as MM2_POSITION_MOVED with the exact range, checked against the target's
 * records by content (every value names its source offset). Never DATA_LOSS (the skipped records still exist),
 * TOPIC_RESET, TASK_STALLED or TASK_NOT_RUNNING (stopped on purpose), TASK_FAILED. MM2_REDELIVERY is not judged on
 * an exactly-once target (its transaction markers make the target not dense): the move back is the one alert.
 * Exactly-once is a worker setting: every source task of the worker then writes in transactions, leaving markers on
 * what it writes for good. So the shared MM2 connectors are paused while it is on, this file copies its topic with a
 * connector of its own, and the worker is put back as it was (no exactly-once) before the shared connectors resume:
 * the later files of the shard see targets without markers.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const names = connectorNames("east", "west");
const runtime = createSandboxRuntime(state, 5);
const topic = `eosmove-${randomUUID().slice(0, 8)}`;
const remote = `east.${topic}`;
/**
 * The shared connector's filter (`.*`, paused meanwhile) takes the topic too: Gapwatch credits a topic to the connector
 * that holds moving offsets for it, else to the first by name — this one sorts first.
 */
const eos = `mm2-east-west-eos-${topic.slice(-8)}`;
const shared = [names.source, names.checkpoint, names.heartbeat, names.upstreamHeartbeat];
const partitions = [0, 1];
const produced = new Map(partitions.map((p) => [p, 0]));
let startedAt = 0;

const rowOf = (s: Snapshot, partition: number) => s.flows[0]?.partitions.find((p) => p.topic === topic && p.partition === partition);
/** What a timed-out wait shows: each partition's positions as Gapwatch read them. */
const describeRows = (s: Snapshot) => JSON.stringify(partitions.map((p) => {
  const r = rowOf(s, p);
  return r && { p, committed: `${r.committedPosition}`, position: `${r.mm2Position}`, target: `${r.targetLogEnd}`, density: r.targetDensityIssue };
}));
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) =>
  cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRows });
const mm2Types = new Set(["TASK_STALLED", "TASK_FAILED", "TASK_NOT_RUNNING", "MM2_CONNECTOR_MISSING"]);
/** This file's topic's alerts, and MM2's own raised since the file began (earlier files may leave theirs). */
const raisedAbout = (): AlertRecord[] =>
  runtime.alerts.list({}).filter((a) => a.topic === topic || a.topic === remote || (mm2Types.has(a.type) && a.firstSeen >= startedAt));

async function produce(partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  const first = produced.get(partition)!;
  // Values carry the source offset: one producer, one partition, in order, into a fresh topic.
  const messages = Array.from({ length: count }, (_, i) => ({ partition, value: JSON.stringify({ topic, partition, offset: first + i }) }));
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  produced.set(partition, first + count);
}

/** Source offsets (from the values) of every record on the target partition, in target order (markers take no record). */
async function readCopies(partition: number, count: number): Promise<number[]> {
  const copies = await readPartition(state, west, remote, partition, 0n, count);
  return copies.map((r) => (JSON.parse(r.value) as { offset: number }).offset);
}

const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

beforeAll(async () => {
  startedAt = Date.now();
  for (const name of shared) await pauseConnector(endpoint, name);
  // A checkpoint connector with no group to checkpoint yet has no task.
  const paused = (c: { state: string; tasks: { state: string }[] }) => c.state === "PAUSED" && c.tasks.every((t) => t.state === "PAUSED");
  for (const name of shared) await waitForConnector(endpoint, name, paused, `${name} PAUSED`);
  await stopConnectWorker();
  await restartConnectWorker(state, { exactlyOnceSourceSupport: true });
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
  await putConnectorConfig(endpoint, eos, sourceConnectorConfig({ source: cluster("east"), target: cluster("west") }, {
    topics: topic,
    ...exactlyOnceSourceConfig,
  }));
  await waitForConnectorsRunning(endpoint, [eos]);
  // Under traffic: ten batches a partition while MM2 copies, each of its transactions leaving a marker on the target.
  for (let batch = 0; batch < 10; batch++) {
    for (const p of partitions) await produce(p, 10);
    await sleep(300);
  }
  await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.committedPosition === 100n && rowOf(s, p)?.targetDensityIssue !== null), `${topic} copied exactly-once`);
}, 300_000);

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  // The shared worker as it was (no exactly-once), then the shared connectors resumed.
  await deleteConnector(endpoint, eos).catch(() => undefined);
  await stopConnectWorker();
  await restartConnectWorker(state);
  for (const name of shared) await resumeConnector(endpoint, name);
  await waitUntilReplicating(state);
  await deleteLeftovers([{ bootstrap: east, topics: [topic] }, { bootstrap: west, topics: [remote] }]);
}, 300_000);

describe("exactly-once MM2 with its offsets altered through Connect's offsets API (KIP-875)", () => {
  it("moved back: re-copied exactly; moved forward: skipped exactly; each an MM2_POSITION_MOVED, nothing else", { timeout: 240_000 }, async () => {
    await stopConnector(endpoint, eos);
    try {
      // STOPPED is reported before the task has shut down: wait until it is gone.
      await waitForConnector(endpoint, eos, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED without tasks");
      for (const p of partitions) await produce(p, 50);
      await runtime.collector.runCycle();
      // MM2 stores the offset of the last record it copied and resumes one past it: partition 0 resumes at 60
      // (60..99 copied again), partition 1 at 130 (100..129 never copied).
      await alterMirrorSourceOffsets(endpoint, eos, [
        { cluster: "east", topic, partition: 0, offset: 59n },
        { cluster: "east", topic, partition: 1, offset: 129n },
      ]);
      await cycleUntil(() => runtime.alerts.list({ type: "MM2_POSITION_MOVED" }).filter((a) => a.topic === topic).length === 2, "MM2_POSITION_MOVED on both partitions", 60_000);
    } finally {
      await resumeConnector(endpoint, eos);
      await waitForConnectorsRunning(endpoint, [eos]);
    }
    await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.committedPosition === 150n && rowOf(s, p)?.lag === 0n), "MM2 copied to the end from the altered offsets");

    const moved = runtime.alerts.list({ type: "MM2_POSITION_MOVED" }).filter((a) => a.topic === topic).sort((a, b) => a.partition! - b.partition!);
    expect(moved.map((a) => [a.partition, a.severity, a.evidence.direction, a.evidence.firstAffectedOffset, a.evidence.lastAffectedOffset, a.evidence.affectedCount])).toEqual([
      [0, "warning", "back", "60", "99", "40"],
      [1, "warning", "forward", "100", "129", "30"],
    ]);
    for (const a of moved) process.stdout.write(`[lookalike-eos] ${a.summary}\n`);

    // Kafka's view, by content: partition 0 holds 60..99 twice (and nothing else twice), partition 1 lacks 100..129.
    const copies0 = await readCopies(0, 150 + 40);
    expect(copies0).toEqual([...range(0, 99), ...range(60, 149)]);
    const twice = range(0, 149).filter((o) => copies0.filter((c) => c === o).length === 2);
    expect([twice[0], twice.at(-1), twice.length]).toEqual([Number(moved[0]!.evidence.firstAffectedOffset), Number(moved[0]!.evidence.lastAffectedOffset), Number(moved[0]!.evidence.affectedCount)]);
    const copies1 = await readCopies(1, 150 - 30);
    expect(copies1).toEqual([...range(0, 99), ...range(130, 149)]);
    // The skipped records still exist at the source: not a loss.
    const source = await fetchLogEnds(east, topic);
    expect([source.get(1)!.low, source.get(1)!.high]).toEqual([0n, 150n]);
    // Offsets are not records on an exactly-once target: its log end is past the records it holds.
    const target = await fetchLogEnds(west, remote);
    expect(target.get(0)!.high > BigInt(copies0.length)).toBe(true);

    await runtime.collector.runCycle();
    expect(raisedAbout().map((a) => a.type)).toEqual(["MM2_POSITION_MOVED", "MM2_POSITION_MOVED"]);
  });
});
