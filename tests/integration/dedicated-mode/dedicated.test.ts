import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { getRuntime } from "@/lib/pipeline/runtime";
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
 * flow east->west excludes); `dtgt->dsrc` is disabled with its heartbeats on (MM2's default), so a
 * second, heartbeat-only herder runs too. Gapwatch is configured with those two aliases and no
 * Connect cluster: it must find the one flow from `mm2-offsets.dsrc.internal` and its connector
 * configs in `mm2-configs.dsrc.internal` on the target (topic filter: `dedicated-.*`), its positions
 * from the offsets topic and its task states from `mm2-status.dsrc.internal`, and be checked against
 * Kafka's own GetOffsetShell and ConsoleConsumer (every record's value names its source partition and
 * offset). `legacy-orders` has a remote topic `dsrc.legacy-orders` on the target although MM2's filter
 * does not take it (created by hand, as an operator pre-creates one): it is no flow partition.
 */
const flowId = "dsrc->dtgt";
const topic = "dedicated-orders";
const targetTopic = `dsrc.${topic}`;
const statusTopic = "mm2-status.dsrc.internal";
const legacyTopic = "legacy-orders";
const partitions = 3;
const first = 20;
/**
 * Well above the dedicated MM2's 5 s offset flush (its positions are published that often), and above the 27 s
 * without a copy seen when two integration shards and the soak shared 2 cores (2026-12-02): a loaded CI machine
 * must not turn this file's clean run into a real stall.
 */
const stallAfterMs = 35_000;

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
  await Promise.all([ensureTopics(east, [{ topic, partitions }, { topic: legacyTopic, partitions: 1 }]), ensureTopics(west, [{ topic: `dsrc.${legacyTopic}`, partitions: 1 }])]);
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
  await runtime?.store.close();
  if (mm2) await stopDedicatedMm2(mm2);
});

describe("dedicated-mode MM2 (connect-mirror-maker), watched through its internal topics only", () => {
  it("finds the flow under MM2's aliases, its positions exactly where the target's last record says, and RUNNING tasks from the status topic", async () => {
    const ready = (s: Snapshot) => isCopied(s) && sourceTaskState(s) === "RUNNING";
    const snapshot = await cycleUntil(ready, "every record copied and MM2's source task RUNNING", 90_000);
    const flow = flowOf(snapshot);
    // One flow: the heartbeat-only dtgt->dsrc herder left its offsets and configs topics on dsrc,
    // but its MirrorSourceConnector is stored with enabled=false.
    const found = snapshot.flows.map((f) => [f.id, f.source, f.target, f.discoveredFrom, f.errors]);
    expect(found).toEqual([[flowId, "dsrc", "dtgt", "dedicated-topics", []]]);
    const dsrcTopics = snapshot.clusters.find((c) => c.alias === "dsrc")!.topics.map((t) => t.name);
    expect(["mm2-offsets.dtgt.internal", "mm2-configs.dtgt.internal"].filter((t) => dsrcTopics.includes(t))).toHaveLength(2);
    const status = flow.dedicatedStatus;
    expect([flow.connectors.connectCluster, status?.topic, status?.error]).toEqual([null, statusTopic, null]);
    // MM2's topic filter from its config topic: only `dedicated-.*`, plus the heartbeats topic MM2 always copies.
    expect([flow.topicsFilter, [...new Set(flow.partitions.map((p) => p.topic))]]).toEqual(["dedicated-.*", [topic, "heartbeats"]]);
    expect(flow.excludedTopics).toEqual([{ topic: legacyTopic, reason: "not matched by topics", heldPositions: 0 }]);

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
    const raw = await readStatusTopic(snapshot);

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
    // The dedicated herder's worker id names its cluster pair: `dsrc->dtgt` on Kafka 3.9, `<host>/dsrc->dtgt/<uuid>` on 4.x.
    for (const c of status!.connectors) expect(c.workerId).toMatch(/(^|\/)dsrc->dtgt($|\/)/);
  });

  it("a clean run longer than the stall threshold raises nothing", async () => {
    const started = Date.now();
    let cycles = 0;
    const flowsSeen = new Set<string>();
    while (Date.now() - started < stallAfterMs + 10_000) {
      await produce([0, 1, 2], 2);
      for (const f of (await runtime.collector.runCycle()).flows) flowsSeen.add(f.id);
      cycles += 1;
      await sleep(2000);
    }
    const snapshot = await cycleUntil((s) => isCopied(s), "the clean run's records copied");
    for (const p of topicPartitions(flowOf(snapshot))) {
      expect([p.partition, p.mm2Position, p.lag]).toEqual([p.partition, BigInt(produced[p.partition]!), 0n]);
    }
    // Heartbeats flowed both ways all along: the dtgt->dsrc herder emits them into dsrc's `heartbeats`
    // (Kafka's HeartbeatFormatter), yet no dtgt->dsrc flow was ever found.
    const reverse = await readReverseHeartbeats(snapshot);
    report("heartbeats emitted by the dtgt->dsrc herder", reverse.slice(0, 2));
    expect(reverse.length).toBeGreaterThan(0);
    expect([[...flowsSeen], snapshot.flows.map((f) => f.id)]).toEqual([[flowId], [flowId]]);
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
  // The tool's timeout also runs while it fetches its first record: under load (16, CI of 2026-12-02) a read came
  // back empty. The records exist: read again.
  let out = "";
  for (let attempt = 0; attempt < 3 && (out.match(/^Partition:/gm)?.length ?? 0) < count; attempt++) {
    out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
      "--bootstrap-server", west, "--topic", targetTopic, "--from-beginning", "--max-messages", String(count), "--timeout-ms", "10000",
      "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
    ]);
  }
  return [...out.matchAll(/^Partition:(\d+)\tOffset:(\d+)\t(.*)$/gm)]
    .map((m) => ({ partition: Number(m[1]), offset: Number(m[2]), value: JSON.parse(m[3]!) as CopiedRecord["value"] }))
    .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** The last 60 records of dsrc's `heartbeats` (one partition) as Kafka's HeartbeatFormatter prints them, those of dtgt->dsrc. */
async function readReverseHeartbeats(snapshot: Snapshot): Promise<string[]> {
  const end = snapshot.clusters.find((c) => c.alias === "dsrc")!.topics.find((t) => t.name === "heartbeats")!.partitions[0]!.logEnd!;
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    "--bootstrap-server", east, "--topic", "heartbeats", "--partition", "0", "--offset", String(end > 60n ? end - 60n : 0n),
    "--max-messages", "60", "--timeout-ms", "10000", "--formatter", "org.apache.kafka.connect.mirror.formatters.HeartbeatFormatter",
  ]);
  return out.split("\n").filter((l) => l.startsWith("Heartbeat{sourceClusterAlias=dtgt, targetClusterAlias=dsrc, timestamp="));
}

/**
 * The newest record of each connector and task key of the status topic, read with Kafka's ConsoleConsumer:
 * as many records as the snapshot saw (it stops at once then; a time-out alone cut the read short under load).
 */
async function readStatusTopic(snapshot: Snapshot): Promise<Map<string, { state: string; generation: number; worker_id: string }>> {
  const partitions = snapshot.clusters.find((c) => c.alias === "dtgt")!.topics.find((t) => t.name === statusTopic)!.partitions;
  const records = partitions.reduce((sum, p) => sum + p.logEnd! - p.logStart!, 0n);
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    "--bootstrap-server", west, "--topic", statusTopic, "--from-beginning", "--max-messages", records.toString(), "--timeout-ms", "20000",
    "--formatter-property", "print.key=true",
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
