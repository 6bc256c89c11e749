import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { Collector } from "@/lib/collector";
import type { Snapshot } from "@/lib/collector/types";
import { parseConfigText } from "@/lib/config/load";
import { getConnectors, getMirrorSourceOffsets, putConnectorConfig, resumeConnector, stopConnector } from "@/lib/connect";
import { ActionUnavailableError, httpStatusOf } from "@/lib/errors";
import { findFreePort } from "@/lib/sandbox/free-port";
import { getRuntime } from "@/lib/pipeline/runtime";
import { describeTopicIds, topicIdToHex } from "@/lib/sandbox/kafka-cli";
import { connectorNames, sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { runFailTask, runLag, runPurge, runRecover, runResetNone, runResume, runTopicReset } from "@/lib/sandbox/scenarios";
import { allTasks, waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { listConnectClusterViews, resolveConnectEndpoint } from "@/lib/views/connect";
import { cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

/**
 * Gapwatch given the sandbox's Connect cluster as its internal topics only (connect-configs, connect-status,
 * connect-offsets on west; no url, so no REST call is possible): the fault matrix's exact checks hold as in REST
 * mode. The faults are injected through Connect's REST API by the test harness; Kafka Connect's REST answers are the
 * ground truth the snapshot is compared with. Faults run on topics of their own.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const source = connectorNames("east", "west").source;
const flowClusters = { source: { alias: "east", bootstrap: east }, target: { alias: "west", bootstrap: west } };
const runtime = createTopicsOnlyRuntime();
const topic = `norest-${randomUUID().slice(0, 8)}`;

/** The runtime of createSandboxRuntime, with the Connect cluster given as `internalTopics` and no url. */
function createTopicsOnlyRuntime() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-it-"));
  const configFile = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(configFile, writeConfigYaml(""));
  process.env.GAPWATCH_CONFIG = configFile;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
  return getRuntime();
}

/** The sandbox's clusters, and its Connect cluster as its internal topics (with `urlLine` before them, if any). */
function writeConfigYaml(urlLine: string): string {
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const connect = `  - name: sandbox\n${urlLine}    internalTopics: { cluster: west, configs: connect-configs, offsets: connect-offsets, status: connect-status }\n    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}`;
  return `clusters:\n${clusters}\nconnect:\n${connect}\npollIntervalSeconds: 5\nconfigRefreshCycles: 1\nthresholds: {"stallAfterMs":15000}\n`;
}

async function produce(name: string, partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic: name, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic: name, partition, seq, run: "norest" }) })) });
  await producer.disconnect();
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });
const firing = (type: string, t?: string, partition?: number): AlertRecord[] =>
  runtime.alerts.list({ state: "firing", type }).filter((a) => (t === undefined || a.topic === t) && (partition === undefined || a.partition === partition));
const mm2Source = (s: Snapshot) => s.connect[0]!.connectors.find((c) => c.name === source);

/** Connect's stored position (offset + 1) per partition of `name`, through REST (the ground truth). */
async function readCommitted(name: string): Promise<Map<number, bigint>> {
  const offsets = await getMirrorSourceOffsets(endpoint, source);
  return new Map(offsets.filter((o) => o.topic === name).map((o) => [o.partition, o.offset + 1n]));
}

/** Replaces the source connector's config through STOPPED (KIP-875: no task left) and waits until it runs again. */
async function reconfigure(extra: Record<string, string>, viaStopped: boolean): Promise<void> {
  if (viaStopped) {
    await stopConnector(endpoint, source);
    await waitForConnector(endpoint, source, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED", 60_000);
  }
  await putConnectorConfig(endpoint, source, sourceConnectorConfig(flowClusters, extra));
  if (viaStopped) await resumeConnector(endpoint, source);
  await waitForConnector(endpoint, source, allTasks("RUNNING"), "RUNNING", 60_000);
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 4 }]);
  for (let p = 0; p < 4; p++) await produce(topic, p, 20);
  await cycleUntil((s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n && p.committedPosition === 20n).length === 4, `${topic} replicated and committed`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await waitUntilReplicating(state);
});

describe("MM2 on Connect read from its internal topics, with no REST API", () => {
  it("shows the connectors, states, configs and positions Connect's REST API shows, marked as read from internal topics", async () => {
    const rest = await getConnectors(endpoint);
    const snapshot = await runtime.collector.runCycle();
    const connect = snapshot.connect[0]!;
    expect(connect).toMatchObject({ name: "sandbox", url: null, source: "internal-topics", reachable: true, error: null });
    expect(connect.restError).toContain("no url configured");
    const shape = (cs: typeof rest) => cs.map((c) => ({ name: c.name, state: c.state, workerId: c.workerId, config: c.config, tasks: c.tasks.map((t) => [t.id, t.state, t.workerId]) }));
    expect(shape(connect.connectors)).toEqual(shape(rest));
    expect(mm2Source(snapshot)?.targetState).toBe("STARTED");
    const committed = await readCommitted(topic);
    const positions = snapshot.flows[0]!.partitions.filter((p) => p.topic === topic).map((p) => [p.partition, p.committedPosition]);
    expect(positions).toEqual([...committed].sort(([a], [b]) => a - b));
    expect(positions.map(([, c]) => c)).toEqual([20n, 20n, 20n, 20n]);
  });

  it("with a url nothing answers on, falls back to the internal topics, says why, and reads the same positions", async () => {
    const port = await findFreePort();
    const collector = new Collector(parseConfigText(writeConfigYaml(`    url: http://127.0.0.1:${port}\n`), "fallback.yaml"), null);
    try {
      const snapshot = await cycleUntilSeen(collector, (s) => s.connect[0]!.reachable, "Connect's topics read to their end", { timeoutMs: 60_000 });
      expect(snapshot.connect[0]).toMatchObject({ url: `http://127.0.0.1:${port}`, source: "internal-topics", error: null });
      expect(snapshot.connect[0]!.restError).toContain("ECONNREFUSED");
      expect(mm2Source(snapshot)?.tasks.map((t) => t.state)).toEqual(["RUNNING"]);
      const committed = await readCommitted(topic);
      expect(snapshot.flows[0]!.partitions.filter((p) => p.topic === topic).map((p) => [p.partition, p.committedPosition])).toEqual([...committed].sort(([a], [b]) => a - b));
    } finally {
      await collector.stop();
    }
  });

  it("purge while MM2 is paused: one DATA_LOSS with the exact lost range; the connector PAUSED with target state PAUSED", async () => {
    const report = await runPurge(state, { topic, partition: 0, records: 500, resume: false });
    try {
      const snapshot = await runtime.collector.runCycle();
      expect(mm2Source(snapshot)).toMatchObject({ state: "PAUSED", targetState: "PAUSED" });
      const alerts = firing("DATA_LOSS", topic);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.partition).toBe(0);
      expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
      expect(report.lostCount).toBe("500");
    } finally {
      await runResume(state);
    }
  });

  it("fail-task: TASK_FAILED with the root cause of the trace; the restart action says why it is unavailable", async () => {
    const failed = await runFailTask(state);
    try {
      const snapshot = await cycleUntil((s) => mm2Source(s)?.tasks.some((t) => t.state === "FAILED") === true, "the FAILED task in connect-status");
      const alerts = firing("TASK_FAILED").filter((a) => a.evidence.connector === failed.connector);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.evidence.taskId).toBe(failed.taskId);
      expect(alerts[0]!.evidence.rootCause).toBe(failed.rootCause);
      expect(String(alerts[0]!.evidence.rootCause)).toContain("Unexpected type in Cast transformation");
      const view = listConnectClusterViews(snapshot, Date.now())[0]!;
      expect(view.source).toBe("internal-topics");
      expect(view.restartUnavailable).toContain("strimzi.io/restart-connector-task=<connector>:<task id>");
      let refused: unknown = null;
      try {
        resolveConnectEndpoint("sandbox", { connector: failed.connector, taskId: failed.taskId });
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(ActionUnavailableError);
      expect(httpStatusOf(refused)).toBe(409);
      expect((refused as Error).message).toContain(`strimzi.io/restart-connector-task=${failed.connector}:${failed.taskId}`);
    } finally {
      await runRecover(state);
    }
  });

  it("topic-reset: TOPIC_RESET with the old and the new topic ID", async () => {
    const reset = `norestreset-${randomUUID().slice(0, 8)}`;
    await ensureTopics(east, [{ topic: reset, partitions: 2 }]);
    await produce(reset, 0, 40);
    await cycleUntil((s) => s.flows[0]!.partitions.some((p) => p.topic === reset && p.partition === 0 && p.lag === 0n && p.targetLogEnd === 40n && p.committedPosition === 40n), `${reset} replicated and committed`);
    await runLag(state, { seconds: 0 });
    let report: Awaited<ReturnType<typeof runTopicReset>>;
    try {
      report = await runTopicReset(state, { topic: reset, records: 10 });
      const snapshot = await runtime.collector.runCycle();
      expect(snapshot.flows[0]!.partitions.find((p) => p.topic === reset && p.partition === 0)?.committedPosition).toBe(40n);
    } finally {
      await runResume(state);
    }
    const alerts = firing("TOPIC_RESET", reset);
    expect(alerts.length).toBeGreaterThanOrEqual(1);
    for (const a of alerts) {
      expect(a.evidence.oldTopicId).toBe(topicIdToHex(report.oldTopicId));
      expect(a.evidence.newTopicId).toBe(topicIdToHex(report.newTopicId));
    }
    expect((await describeTopicIds(state, east, [reset])).get(reset)).toBe(report.newTopicId);
  }, 240_000);

  it("auto.offset.reset=none then a purge: TASK_STALLED names the partition while the task reports RUNNING", async () => {
    await runResetNone(state);
    try {
      await cycleUntil((s) => s.flows[0]!.partitions.some((p) => p.topic === topic && p.partition === 2 && p.lag === 0n), "partition 2 caught up");
      const report = await runPurge(state, { topic, partition: 2, records: 100, resume: true });
      await produce(topic, 2, 20);
      await cycleUntil(() => firing("TASK_STALLED").some((a) => String(a.evidence.partitions).split(",").includes(`${topic}/2`)), "TASK_STALLED", 90_000);
      const snapshot = await runtime.collector.runCycle();
      const p2 = snapshot.flows[0]!.partitions.find((p) => p.topic === topic && p.partition === 2)!;
      expect(p2.mm2Position).toBe(BigInt(report.mm2Position));
      expect(mm2Source(snapshot)!.tasks.every((t) => t.state === "RUNNING")).toBe(true);
      expect(p2.sourceLogStart).toBe(BigInt(report.newLogStart));
    } finally {
      await runRecover(state);
    }
  }, 240_000);

  it("topic filter narrowed: the topic leaves the flow with one TOPIC_LEFT_FLOW naming the positions Connect holds", async () => {
    const left = `norestfilter-${randomUUID().slice(0, 8)}`;
    await ensureTopics(east, [{ topic: left, partitions: 2 }]);
    await produce(left, 0, 10);
    await produce(left, 1, 10);
    await cycleUntil((s) => s.flows[0]!.partitions.filter((p) => p.topic === left && p.committedPosition === 10n).length === 2, `${left} replicated and committed`);
    const defaultExclude = sourceConnectorConfig(flowClusters)["topics.exclude"];
    try {
      await reconfigure({ "topics.exclude": `${defaultExclude}, ${left}` }, true);
      const snapshot = await cycleUntil((s) => !s.flows[0]!.partitions.some((p) => p.topic === left), `${left} to leave the flow`);
      expect(mm2Source(snapshot)?.config["topics.exclude"]).toBe(`${defaultExclude}, ${left}`);
      expect(firing("TOPIC_LEFT_FLOW", left).map((a) => [a.severity, a.summary])).toEqual([
        ["info", `${left} left the flow east->west: excluded by topics.exclude; Connect still holds MM2's offsets for 2 partitions`],
      ]);
    } finally {
      await reconfigure({}, false);
    }
  }, 240_000);
});
