import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { getRuntime } from "@/lib/collector/singleton";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { type DedicatedMm2, startDedicatedMm2, stopDedicatedMm2 } from "@/lib/sandbox/dedicated-mm2";
import { classpathOf } from "@/lib/sandbox/jars";
import { readPartition, runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { readLogEnds } from "../real-clusters/kafka-cli-truth";
import { cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * MM2 in dedicated mode (`connect-mirror-maker`: org.apache.kafka.connect.mirror.MirrorMaker with an
 * mm2.properties, no Connect REST), run for real between the shared sandbox's two clusters under
 * aliases of its own, `dsrc` (east) -> `dtgt` (west), copying `dedicated-.*` (which the Connect-mode
 * flow east->west excludes). Gapwatch is configured with those two aliases and no Connect cluster:
 * it must find the flow from `mm2-offsets.dsrc.internal` on the target, its positions from that
 * topic and its task states from `mm2-status.dsrc.internal`, and be checked against Kafka's own
 * GetOffsetShell and ConsoleConsumer (every record's value names its source partition and offset).
 */
const flowId = "dsrc->dtgt";
const topic = "dedicated-orders";
const targetTopic = `dsrc.${topic}`;
const statusTopic = "mm2-status.dsrc.internal";
const partitions = 3;
const first = 20;
/** Above the dedicated MM2's 5 s offset flush: its positions are published that often. */
const stallAfterMs = 15_000;

let state: SandboxState;
let east: string;
let west: string;
let mm2: DedicatedMm2 | null = null;
let runtime: ReturnType<typeof getRuntime>;
/** Next offset to produce per partition (the topic is new: offset = sequence). */
const produced = Array.from({ length: partitions }, () => 0);

beforeAll(async () => {
  state = readSandboxState();
  east = state.clusters.east!.bootstrap;
  west = state.clusters.west!.bootstrap;
  await ensureTopics(east, [{ topic, partitions }]);
  await produce([0, 1, 2], first);
  const started = Date.now();
  mm2 = await startDedicatedMm2({
    name: "mm2-dedicated",
    baseDir: sandboxDir,
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
    flow: { source: { alias: "dsrc", bootstrap: east }, target: { alias: "dtgt", bootstrap: west }, topics: "dedicated-.*" },
  });
  report(`MirrorMaker started in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${mm2.process.pid})`);
  runtime = createDedicatedRuntime(east, west);
});

afterAll(async () => {
  await runtime?.collector.stop();
  runtime?.alerts.stop();
  runtime?.store.close();
  if (mm2) await stopDedicatedMm2(mm2);
});

describe("dedicated-mode MM2 (connect-mirror-maker), watched through its internal topics only", () => {
  it("finds the flow under MM2's aliases, its positions exactly where the target's last record says, and RUNNING tasks from the status topic", async () => {
    const ready = (s: Snapshot) => isCopied(s) && sourceTaskState(s) === "RUNNING";
    const snapshot = await cycleUntil(ready, "every record copied and MM2's source task RUNNING", 90_000);
    const flow = flowOf(snapshot);
    const found = snapshot.flows.map((f) => [f.id, f.source, f.target, f.discoveredFrom]);
    expect(found).toEqual([[flowId, "dsrc", "dtgt", "dedicated-topics"]]);
    const status = flow.dedicatedStatus;
    expect([flow.connectors.connectCluster, status?.topic, status?.error]).toEqual([null, statusTopic, null]);

    // Kafka's view, one tool (a JVM) at a time, on 2 shared cores: log ends on both clusters
    // (GetOffsetShell), then every record of the target topic (ConsoleConsumer): each source
    // record exactly once, in order, so MM2's position is the last one's source offset + 1.
    const sourceEnds = await readLogEnds(state, east, topic);
    const targetEnds = await readLogEnds(state, west, targetTopic);
    const copied = await readTargetTopic(partitions * first);
    for (const p of topicPartitions(flow)) {
      const values = copied.filter((r) => r.partition === p.partition);
      const expected = Array.from({ length: first }, (_, o) => [o, { topic, partition: p.partition, offset: o }]);
      expect(values.map((r) => [r.offset, r.value])).toEqual(expected);
      expect([p.partition, p.sourceLogEnd, p.targetLogEnd, p.mm2Position, p.lag, p.unknown]).toEqual([
        p.partition,
        sourceEnds.get(`${topic}/${p.partition}`),
        targetEnds.get(`${targetTopic}/${p.partition}`),
        BigInt(values.at(-1)!.value.offset + 1),
        0n,
        null,
      ]);
      expect(p.mm2Position).toBe(BigInt(first));
    }
    const raw = await readStatusTopic();

    // The status topic as ConsoleConsumer reads it: the newest record of each key is what Gapwatch shows.
    const shown = new Map(
      status!.connectors.flatMap((c) => [
        [`status-connector-${c.name}`, c.state],
        ...c.tasks.map((t) => [`status-task-${c.name}-${t.id}`, t.state] as const),
      ]),
    );
    report("status topic (newest per key)", [...raw].map(([k, v]) => `${k} ${v.state} gen ${v.generation} on ${v.worker_id}`));
    expect(new Map([...raw].map(([k, v]) => [k, v.state]))).toEqual(shown);
    expect(shown.get("status-connector-MirrorSourceConnector")).toBe("RUNNING");
    expect(shown.get("status-task-MirrorSourceConnector-0")).toBe("RUNNING");
    // The dedicated herder's worker id names its cluster pair.
    for (const c of status!.connectors) expect(c.workerId).toContain("/dsrc->dtgt/");
  });

  it("a clean run longer than the stall threshold raises nothing", async () => {
    const started = Date.now();
    let cycles = 0;
    while (Date.now() - started < stallAfterMs + 10_000) {
      await produce([0, 1, 2], 2);
      await runtime.collector.runCycle();
      cycles += 1;
      await sleep(2000);
    }
    const snapshot = await cycleUntil((s) => isCopied(s), "the clean run's records copied");
    for (const p of topicPartitions(flowOf(snapshot))) {
      expect([p.partition, p.mm2Position, p.lag]).toEqual([p.partition, BigInt(produced[p.partition]!), 0n]);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    report(`clean run: ${cycles} cycles over ${seconds} s, ${produced.join("/")} records per partition`);
    expect(firing().map((a) => a.key)).toEqual([]);
    expect(alerts("resolved").map((a) => a.key)).toEqual([]);
  });

  it("MM2 stopped, unreplicated records purged: one DATA_LOSS with the exact range, nothing else", async () => {
    await stopDedicatedMm2(mm2!);
    mm2 = null;
    // A graceful stop writes UNASSIGNED for the connector; the task's UNASSIGNED carries the
    // generation of its RUNNING status, which Connect's reader takes for a stale write.
    const stopped = await cycleUntil((s) => sourceConnectorState(s) === "UNASSIGNED", "MM2's source connector UNASSIGNED");
    const position = topicPartitions(flowOf(stopped)).find((p) => p.partition === 1)!.mm2Position!;
    // The target's last record (GetOffsetShell's log end - 1, read with ConsoleConsumer) is the source's position - 1.
    const targetEnd = (await readLogEnds(state, west, targetTopic)).get(`${targetTopic}/1`);
    const [last] = await readPartition(state, west, targetTopic, 1, position - 1n, 1);
    const lastSourceOffset = (JSON.parse(last!.value) as { offset: number }).offset;
    expect([targetEnd, last!.offset, lastSourceOffset]).toEqual([position, position - 1n, Number(position) - 1]);

    await produce([1], 30);
    const logEnd = BigInt(produced[1]!);
    const admin = sandboxKafka(east, "gapwatch-dedicated-purge").admin();
    await admin.connect();
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 1, offset: logEnd.toString() }] });
    await admin.disconnect();
    const earliest = await runKafkaTool(state, "org.apache.kafka.tools.GetOffsetShell", [
      "--bootstrap-server", east, "--topic", topic, "--partitions", "1", "--time", "-2",
    ]);
    expect(earliest.trim()).toBe(`${topic}:1:${logEnd}`);

    await runtime.collector.runCycle();
    const losses = firing().filter((a) => a.type === "DATA_LOSS");
    expect(losses.map((a) => [a.flow, a.topic, a.partition, a.severity])).toEqual([[flowId, topic, 1, "critical"]]);
    expect(losses[0]!.evidence).toMatchObject({
      firstLostOffset: position.toString(),
      lastLostOffset: (logEnd - 1n).toString(),
      lostCount: (logEnd - position).toString(),
    });
    expect(logEnd - position).toBe(30n);
    expect(firing().map((a) => a.key)).toEqual([losses[0]!.key]);
  });
});

/** Gapwatch with the dedicated MM2's aliases and no Connect cluster, driven cycle by cycle. */
function createDedicatedRuntime(source: string, target: string): ReturnType<typeof getRuntime> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-dedicated-"));
  const configFile = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(
    configFile,
    [
      "clusters:",
      `  - alias: dsrc\n    bootstrap: ${source}`,
      `  - alias: dtgt\n    bootstrap: ${target}`,
      "pollIntervalSeconds: 5",
      "configRefreshCycles: 1",
      `thresholds: ${JSON.stringify({ stallAfterMs })}`,
      "",
    ].join("\n"),
  );
  process.env.GAPWATCH_CONFIG = configFile;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
  return getRuntime();
}

async function produce(to: readonly number[], count: number): Promise<void> {
  const producer = sandboxKafka(east, "gapwatch-dedicated").producer();
  await producer.connect();
  try {
    const messages = to.flatMap((partition) =>
      Array.from({ length: count }, () => ({ partition, value: JSON.stringify({ topic, partition, offset: produced[partition]!++ }) })),
    );
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Every record of the target topic (`count` of them), read with Kafka's ConsoleConsumer, values parsed. */
type CopiedRecord = { partition: number; offset: number; value: { topic: string; partition: number; offset: number } };

async function readTargetTopic(count: number): Promise<CopiedRecord[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    "--bootstrap-server", west, "--topic", targetTopic, "--from-beginning", "--max-messages", String(count), "--timeout-ms", "10000",
    "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
  ]);
  return [...out.matchAll(/^Partition:(\d+)\tOffset:(\d+)\t(.*)$/gm)]
    .map((m) => ({ partition: Number(m[1]), offset: Number(m[2]), value: JSON.parse(m[3]!) as CopiedRecord["value"] }))
    .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** The newest record of each connector and task key of the status topic, read with Kafka's ConsoleConsumer. */
async function readStatusTopic(): Promise<Map<string, { state: string; generation: number; worker_id: string }>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    "--bootstrap-server", west, "--topic", statusTopic, "--from-beginning", "--timeout-ms", "3000", "--formatter-property", "print.key=true",
  ]);
  const newest = new Map<string, { state: string; generation: number; worker_id: string }>();
  for (const line of out.split("\n")) {
    const [key, value] = line.split("\t");
    if (!key?.startsWith("status-connector-") && !key?.startsWith("status-task-")) continue;
    newest.set(key, JSON.parse(value!) as { state: string; generation: number; worker_id: string });
  }
  return newest;
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) =>
  cycleUntilSeen(runtime.collector, check, what, {
    timeoutMs,
    describe: (s) =>
      JSON.stringify(
        {
          flows: s.flows.map((f) => f.id),
          partitions: flowOf(s) ? topicPartitions(flowOf(s)).map((p) => [p.partition, p.mm2Position, p.targetLogEnd, p.lag]) : null,
          status: flowOf(s)?.dedicatedStatus,
        },
        (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
      ),
  });

function flowOf(snapshot: Snapshot): Flow {
  return snapshot.flows.find((f) => f.id === flowId)!;
}

function topicPartitions(flow: Flow) {
  return flow.partitions.filter((p) => p.topic === topic);
}

function isCopied(snapshot: Snapshot): boolean {
  const parts = flowOf(snapshot) ? topicPartitions(flowOf(snapshot)) : [];
  return parts.length === partitions && parts.every((p) => p.lag === 0n && p.targetLogEnd === BigInt(produced[p.partition]!));
}

function sourceConnectorState(snapshot: Snapshot): string | undefined {
  return flowOf(snapshot)?.dedicatedStatus?.connectors.find((c) => c.name === "MirrorSourceConnector")?.state;
}

function sourceTaskState(snapshot: Snapshot): string | undefined {
  return flowOf(snapshot)?.dedicatedStatus?.connectors.find((c) => c.name === "MirrorSourceConnector")?.tasks[0]?.state;
}

/**
 * Alerts raised in this file, besides the true risk flags of consumer groups other files left on
 * the clusters (kafkajs commits carry no leader epoch: COMMIT_WITHOUT_LEADER_EPOCH).
 */
function alerts(which: "firing" | "resolved"): AlertRecord[] {
  return runtime.alerts.list({ state: which }).filter((a) => a.type !== "COMMIT_WITHOUT_LEADER_EPOCH");
}

function firing(): AlertRecord[] {
  return alerts("firing");
}

function report(step: string, lines: string[] = []): void {
  process.stderr.write(`[dedicated] ${step}${lines.map((l) => `\n  ${l}`).join("")}\n`);
}
