import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { alterMirrorSourceOffsets, resumeConnector, stopConnector } from "@/lib/connect";
import { killConnectWorker, restartConnectWorker, stopConnectWorker } from "@/lib/sandbox/connect-control";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime } from "../support/runtime";

/**
 * What production MM2 does every week, done for real: the Connect worker killed with SIGKILL while
 * running with production's 60 s offset flush, then restarted (MM2 copies again what it had not
 * committed), and MM2's offsets changed by hand through Connect's offsets API (KIP-875). Expected:
 * MM2_REDELIVERY (info) with exactly the duplicated range the target holds, MM2_POSITION_MOVED
 * (warning) with exactly the offsets re-copied or skipped, and no TOPIC_RESET, DATA_LOSS or other
 * critical alert. Ground truth: the target's records read with Kafka's ConsoleConsumer (every value
 * names its source offset). Runs last (restarting the worker re-copies records of every topic).
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const names = connectorNames("east", "west");
const runtime = createSandboxRuntime(state, 5);
const topic = `crashtest-${randomUUID().slice(0, 8)}`;
const remote = `east.${topic}`;
const partitions = [0, 1, 2];
const before = 30;
const uncommitted = 200;
const produced = new Map(partitions.map((p) => [p, 0]));

const rowOf = (s: Snapshot, partition: number) => s.flows[0]!.partitions.find((p) => p.topic === topic && p.partition === partition);
const alertsOf = (type: string): AlertRecord[] => runtime.alerts.list({ type }).filter((a) => a.topic === topic).sort((a, b) => a.partition! - b.partition!);

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

async function cycleUntil(check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  let snapshot = await runtime.collector.runCycle();
  while (!check(snapshot)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(1000);
    snapshot = await runtime.collector.runCycle();
  }
  return snapshot;
}

/** Source offsets the target partition holds more than once (from the values), as [first, last, count]. */
async function readDuplicates(partition: number, targetRecords: number): Promise<[string, string, string]> {
  const records = await readPartition(state, west, remote, partition, 0n, targetRecords);
  expect(records).toHaveLength(targetRecords);
  const seen = new Map<number, number>();
  for (const r of records) {
    const offset = (JSON.parse(r.value) as { offset: number }).offset;
    seen.set(offset, (seen.get(offset) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1).map(([offset]) => offset).sort((a, b) => a - b);
  return [String(twice[0]), String(twice.at(-1)), String(twice.length)];
}

const criticalAlerts = () => runtime.alerts.list({}).filter((a) => a.severity === "critical").map((a) => `${a.type} ${a.summary}`);

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  for (const p of partitions) await produce(p, before);
  await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.targetLogEnd === BigInt(before) && rowOf(s, p)?.committedPosition === BigInt(before)), `${topic} replicated and committed`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  runtime.store.close();
});

describe("MM2's worker and offsets under production events", () => {
  it("SIGKILL of the Connect worker with a 60 s offset flush: MM2_REDELIVERY with exactly the duplicated range, nothing critical", { timeout: 240_000 }, async () => {
    await stopConnectWorker();
    await restartConnectWorker(state, { offsetFlushIntervalMs: 60_000 });
    await waitForConnectorsRunning(endpoint, [names.source]);
    const restartedAt = Date.now();
    for (const p of partitions) await produce(p, uncommitted);
    const total = BigInt(before + uncommitted);
    await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.targetLogEnd === total), `${topic} copied`);
    // Connect has not flushed MM2's positions since the restart: they still say 30.
    const copied = await runtime.collector.runCycle();
    expect(partitions.map((p) => rowOf(copied, p)!.committedPosition)).toEqual(partitions.map(() => BigInt(before)));
    expect(Date.now() - restartedAt).toBeLessThan(55_000);

    await killConnectWorker();
    await runtime.collector.runCycle();
    await restartConnectWorker(state);
    await waitForConnectorsRunning(endpoint, [names.source]);
    const recopied = total + BigInt(uncommitted);
    await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.targetLogEnd === recopied && rowOf(s, p)?.mm2Position === total), `${topic} copied again`);
    await runtime.collector.runCycle();

    const redeliveries = alertsOf("MM2_REDELIVERY");
    expect(redeliveries.map((a) => a.partition)).toEqual(partitions);
    for (const alert of redeliveries) {
      const truth = await readDuplicates(alert.partition!, Number(recopied));
      expect([alert.evidence.firstDuplicateOffset, alert.evidence.lastDuplicateOffset, alert.evidence.duplicateCount]).toEqual(truth);
      expect(alert.severity).toBe("info");
      process.stdout.write(`[worker-crash] ${alert.summary}\n`);
    }
    expect(alertsOf("TOPIC_RESET")).toEqual([]);
    expect(alertsOf("DATA_LOSS")).toEqual([]);
    expect(alertsOf("MM2_POSITION_MOVED")).toEqual([]);
    expect(criticalAlerts()).toEqual([]);
  });

  it("offsets changed through Connect's offsets API: MM2_POSITION_MOVED with the exact offsets re-copied and skipped", { timeout: 180_000 }, async () => {
    const total = before + uncommitted;
    await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.committedPosition === BigInt(total)), "MM2's positions committed");
    await stopConnector(endpoint, names.source);
    await waitForConnector(endpoint, names.source, (c) => c.state === "STOPPED", "STOPPED");
    await produce(1, 100);
    // Back on partition 0 (re-copy 180..229), forward on partition 1 (skip 230..279).
    const changes = [
      { cluster: "east", topic, partition: 0, offset: BigInt(total - 51) },
      { cluster: "east", topic, partition: 1, offset: BigInt(total + 49) },
    ];
    await alterMirrorSourceOffsets(endpoint, names.source, changes);
    await cycleUntil(() => alertsOf("MM2_POSITION_MOVED").length === 2, "MM2_POSITION_MOVED on partitions 0 and 1", 30_000);
    const moved = alertsOf("MM2_POSITION_MOVED").map((a) => [a.partition, a.severity, a.evidence.direction, a.evidence.firstAffectedOffset, a.evidence.lastAffectedOffset, a.evidence.affectedCount]);
    expect(moved).toEqual([
      [0, "warning", "back", "180", "229", "50"],
      [1, "warning", "forward", "230", "279", "50"],
    ]);

    await resumeConnector(endpoint, names.source);
    await waitForConnectorsRunning(endpoint, [names.source]);
    const targetEnd = (p: number) => BigInt(total + uncommitted + (p === 0 ? 50 : p === 1 ? 50 : 0));
    await cycleUntil((s) => [0, 1].every((p) => rowOf(s, p)?.targetLogEnd === targetEnd(p)), "MM2 resumed from the new offsets");
    // Kafka's view: partition 1's target got source offsets 280..329 only; 230..279 were skipped.
    const resumed = await readPartition(state, west, remote, 1, BigInt(total + uncommitted), 50);
    expect(resumed.map((r) => (JSON.parse(r.value) as { offset: number }).offset)).toEqual(Array.from({ length: 50 }, (_, i) => 280 + i));
    const source = await fetchLogEnds(east, topic);
    expect(source.get(1)!.high).toBe(BigInt(total + 100));
    await runtime.collector.runCycle();
    expect(alertsOf("MM2_POSITION_MOVED")).toHaveLength(2);
    expect(alertsOf("TOPIC_RESET")).toEqual([]);
    expect(alertsOf("DATA_LOSS")).toEqual([]);
    expect(criticalAlerts()).toEqual([]);
  });
});
