import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { GET as getFailoverCsv } from "@/app/api/flows/[flow]/groups/[group]/failover.csv/route";
import { alterMirrorSourceOffsets, getConnectors, putConnectorConfig, resumeConnector, stopConnector } from "@/lib/connect";
import { killConnectWorker, restartConnectWorker, stopConnectWorker } from "@/lib/sandbox/connect-control";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { connectorNames, exactlyOnceSourceConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

/**
 * What production MM2 does every week, done for real: the Connect worker killed with SIGKILL while
 * running with production's 60 s offset flush, then restarted (MM2 copies again what it had not
 * committed), and MM2's offsets changed by hand through Connect's offsets API (KIP-875). Expected:
 * MM2_REDELIVERY (info) with exactly the duplicated range the target holds, MM2_POSITION_MOVED
 * (warning) with exactly the offsets re-copied or skipped, and no TOPIC_RESET, DATA_LOSS or other
 * critical alert. Then MM2 in exactly-once mode: transaction markers on the target must not inflate
 * MM2's position, fake re-copies, or make the precise failover plan skip a record. Ground truth: the target's records read with Kafka's ConsoleConsumer (every value
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

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRows });

/** The test topic's rows and alerts, for a failure message. */
function describeRows(s: Snapshot): string {
  const rows = s.flows[0]?.partitions.filter((p) => p.topic === topic) ?? [];
  const shown = rows.map((p) => `${p.partition}: committed ${p.committedPosition} mm2 ${p.mm2Position} (${p.positionSource}) target ${p.targetLogEnd}${p.unknown ? ` unknown ${p.unknown.reason}` : ""}`);
  const alerts = runtime.alerts.list({}).filter((a) => a.topic === topic).map((a) => `${a.type} ${a.state} ${a.summary}`);
  return `rows [${shown.join("; ")}] alerts [${alerts.join("; ")}] flow errors [${s.flows[0]?.errors.join("; ") ?? "no flow"}]`;
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

/** Critical alerts first raised since `since` (earlier files' purges left true losses on their own topics). */
const criticalAlertsSince = (since: number) =>
  runtime.alerts.list({}).filter((a) => a.severity === "critical" && a.firstSeen >= since).map((a) => `${a.type} ${a.summary}`);

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  for (const p of partitions) await produce(p, before);
  await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.targetLogEnd === BigInt(before) && rowOf(s, p)?.committedPosition === BigInt(before)), `${topic} replicated and committed`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  // The worker was restarted (exactly-once at the end): whatever runs next on this sandbox needs MM2 copying.
  await waitUntilReplicating(state);
});

describe("MM2's worker and offsets under production events", () => {
  it("SIGKILL of the Connect worker with a 60 s offset flush: MM2_REDELIVERY with exactly the duplicated range, nothing critical", { timeout: 240_000 }, async () => {
    const since = Date.now();
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
    expect(criticalAlertsSince(since)).toEqual([]);
  });

  it("offsets changed through Connect's offsets API: MM2_POSITION_MOVED with the exact offsets re-copied and skipped", { timeout: 180_000 }, async () => {
    const total = before + uncommitted;
    await cycleUntil((s) => partitions.every((p) => rowOf(s, p)?.committedPosition === BigInt(total)), "MM2's positions committed");
    const since = Date.now();
    await stopConnector(endpoint, names.source);
    // STOPPED is reported before the task has shut down: wait until it is gone, and check MM2 copies nothing more.
    await waitForConnector(endpoint, names.source, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED without tasks");
    await sleep(2000);
    await produce(1, 100);
    await sleep(3000);
    expect((await fetchLogEnds(west, remote)).get(1)!.high).toBe(BigInt(total + uncommitted));
    // Back on partition 0 (re-copy 180..229), forward on partition 1 (skip 230..279).
    const changes = [
      { cluster: "east", topic, partition: 0, offset: BigInt(total - 51) },
      { cluster: "east", topic, partition: 1, offset: BigInt(total + 49) },
    ];
    try {
      await alterMirrorSourceOffsets(endpoint, names.source, changes);
      await cycleUntil(() => alertsOf("MM2_POSITION_MOVED").length === 2, "MM2_POSITION_MOVED on partitions 0 and 1", 30_000);
      const moved = alertsOf("MM2_POSITION_MOVED").map((a) => [a.partition, a.severity, a.evidence.direction, a.evidence.firstAffectedOffset, a.evidence.lastAffectedOffset, a.evidence.affectedCount]);
      expect(moved).toEqual([
        [0, "warning", "back", "180", "229", "50"],
        [1, "warning", "forward", "230", "279", "50"],
      ]);
    } finally {
      // The next test needs MM2 running whatever happened here.
      await resumeConnector(endpoint, names.source);
      await waitForConnectorsRunning(endpoint, [names.source]);
    }
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
    expect(criticalAlertsSince(since)).toEqual([]);
  });

  it("stopped, moved forward and resumed between two of Gapwatch's cycles: MM2_POSITION_MOVED from the offset syncs, exact", { timeout: 120_000 }, async () => {
    const total = before + uncommitted;
    // Partition 2's target holds the crash's second copies too: 230 + 200 records.
    const targetBefore = BigInt(total + uncommitted);
    await cycleUntil((s) => rowOf(s, 2)?.committedPosition === BigInt(total) && rowOf(s, 2)?.targetLogEnd === targetBefore, "partition 2 copied and committed");
    const since = Date.now();
    await stopConnector(endpoint, names.source);
    await waitForConnector(endpoint, names.source, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED without tasks");
    await produce(2, 100);
    // No cycle runs from here until MM2 copies again: the committed position never shows the move.
    try {
      // MM2 stores the offset of the last record it copied and resumes one past it: at 270.
      await alterMirrorSourceOffsets(endpoint, names.source, [{ cluster: "east", topic, partition: 2, offset: BigInt(total + 39) }]);
    } finally {
      await resumeConnector(endpoint, names.source);
      await waitForConnectorsRunning(endpoint, [names.source]);
    }
    await cycleUntil(() => alertsOf("MM2_POSITION_MOVED").some((a) => a.partition === 2), "MM2_POSITION_MOVED on partition 2", 60_000);
    const moved = alertsOf("MM2_POSITION_MOVED").filter((a) => a.partition === 2);
    expect(moved.map((a) => [a.evidence.direction, a.evidence.signal, a.evidence.firstAffectedOffset, a.evidence.lastAffectedOffset, a.evidence.affectedCount])).toEqual([
      ["forward", "offset-sync-gap", "230", "269", "40"],
    ]);
    // Kafka's view: after its copies of 0..229 the target got source offsets 270..329; 230..269 never.
    await cycleUntil((s) => rowOf(s, 2)?.targetLogEnd === targetBefore + 60n, "MM2 copied 270..329");
    const copiedAfter = await readPartition(state, west, remote, 2, targetBefore, 60);
    expect(copiedAfter.map((r) => (JSON.parse(r.value) as { offset: number }).offset)).toEqual(Array.from({ length: 60 }, (_, i) => 270 + i));
    expect(alertsOf("DATA_LOSS")).toEqual([]);
    expect(criticalAlertsSince(since)).toEqual([]);
  });

  it("MM2 in exactly-once mode: positions and lag exact despite the target's markers, no phantom re-copies, the precise plan skips nothing", { timeout: 240_000 }, async () => {
    const eosTopic = `eostest-${randomUUID().slice(0, 8)}`;
    const group = `eosgroup-${randomUUID().slice(0, 8)}`;
    const config = (await getConnectors(endpoint)).find((c) => c.name === names.source)!.config;
    await stopConnectWorker();
    await restartConnectWorker(state, { exactlyOnceSourceSupport: true });
    await putConnectorConfig(endpoint, names.source, { ...config, ...exactlyOnceSourceConfig });
    await waitForConnectorsRunning(endpoint, [names.source]);
    await ensureTopics(east, [{ topic: eosTopic, partitions: 2 }]);
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    // Ten small batches per partition: MM2 commits several transactions, each leaving a marker.
    for (let batch = 0; batch < 10; batch++) {
      const messages = [0, 1].flatMap((partition) => Array.from({ length: 10 }, (_, i) => ({ partition, value: JSON.stringify({ topic: eosTopic, partition, offset: batch * 10 + i }) })));
      await producer.send({ topic: eosTopic, acks: -1, messages });
      await sleep(300);
    }
    await producer.disconnect();
    const rows = (s: Snapshot) => s.flows[0]!.partitions.filter((p) => p.topic === eosTopic);
    const snapshot = await cycleUntil((s) => rows(s).length === 2 && rows(s).every((p) => p.committedPosition === 100n && p.targetDensityIssue !== null), `${eosTopic} copied exactly-once`);

    // Kafka's view: each source record is on the target once, and the target has more offsets than records.
    const targetEnds = await fetchLogEnds(west, `east.${eosTopic}`);
    for (const row of rows(snapshot)) {
      const records = await readPartition(state, west, `east.${eosTopic}`, row.partition, 0n, 100);
      expect(records.map((r) => (JSON.parse(r.value) as { offset: number }).offset)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(targetEnds.get(row.partition)!.high > 100n).toBe(true);
      expect([row.mm2Position, row.positionSource, row.lag, row.targetLogEnd]).toEqual([100n, "committed", 0n, targetEnds.get(row.partition)!.high]);
    }

    // A group at source offset 37 of partition 0: the precise plan must not start after its record on the target.
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    await admin.setOffsets({ groupId: group, topic: eosTopic, partitions: [{ partition: 0, offset: "37" }, { partition: 1, offset: "100" }] });
    await admin.disconnect();
    await cycleUntil((s) => s.clusters.find((c) => c.alias === "east")!.groups.some((g) => g.groupId === group), `${group} read`);
    await runtime.collector.runCycle();
    const response = await getFailoverCsv(new Request(`http://localhost/api/flows/east-%3Ewest/groups/${group}/failover.csv?mode=precise`), {
      params: Promise.resolve({ flow: "east-%3Ewest", group }),
    });
    expect(response.status).toBe(200);
    const planned = new Map((await response.text()).trim().split("\n").map((line) => line.split(",")).filter(([t]) => t === `east.${eosTopic}`).map(([, p, o]) => [Number(p), BigInt(o!)]));
    const target0 = await readPartition(state, west, `east.${eosTopic}`, 0, 0n, 100);
    const at37 = target0.find((r) => (JSON.parse(r.value) as { offset: number }).offset === 37)!.offset;
    expect(planned.get(0)! <= at37).toBe(true);
    expect(planned.get(1)! <= targetEnds.get(1)!.high).toBe(true);
    process.stdout.write(`[eos] precise plan for source offset 37: target ${planned.get(0)} (record at ${at37}, ${at37 - planned.get(0)!} re-read)\n`);

    expect(runtime.alerts.list({}).filter((a) => a.topic === eosTopic).map((a) => `${a.type} ${a.summary}`)).toEqual([]);
    expect(runtime.alerts.list({ type: "TASK_FAILED" }).filter((a) => a.evidence.connector === names.source)).toEqual([]);
  });
});
