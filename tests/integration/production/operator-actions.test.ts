import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, getConnectors, putConnectorConfig, restartConnector, resumeConnector, stopConnector } from "@/lib/connect";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { allTasks, waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

/**
 * Operator actions that must never page anyone, done for real: MM2's source connector paused for
 * longer than the stall threshold while the source grows (PAUSED is a state to show, not a stall),
 * the connector deleted and re-created under its name (Connect keeps its offsets, KIP-875), and a
 * source topic's partition count increased (MM2 adds the new partition on its next topic refresh), the connector
 * STOPPED (Kafka 3.5+) longer than the not-running threshold, and restarted with its tasks through REST.
 * Each runs while records flow, and asserts the exact state Kafka shows.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const names = connectorNames("east", "west");
const stallAfterMs = 15_000;
// TASK_NOT_RUNNING and MM2_CONNECTOR_MISSING wait this long: the pause and the stop below last longer.
const notRunningAfterMs = 15_000;
const runtime = createSandboxRuntime(state, 5, { stallAfterMs, notRunningAfterMs });
const topic = `opstest-${randomUUID().slice(0, 8)}`;
const produced = new Map<number, number>();

const rowOf = (s: Snapshot, partition: number) => s.flows[0]?.partitions.find((p) => p.topic === topic && p.partition === partition);
const mm2Types = new Set(["TASK_STALLED", "TASK_FAILED", "TASK_NOT_RUNNING", "MM2_CONNECTOR_MISSING"]);
const raisedAbout = (): AlertRecord[] => runtime.alerts.list({}).filter((a) => a.topic === topic || mm2Types.has(a.type));

async function produce(partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  const first = produced.get(partition) ?? 0;
  const messages = Array.from({ length: count }, (_, i) => ({ partition, value: JSON.stringify({ topic, partition, offset: first + i }) }));
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  produced.set(partition, first + count);
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

const copiedAll = (s: Snapshot, partitions: number[]) => partitions.every((p) => rowOf(s, p)?.targetLogEnd === BigInt(produced.get(p) ?? 0) && rowOf(s, p)?.lag === 0n);

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 2 }]);
  for (const p of [0, 1]) await produce(p, 50);
  await cycleUntil((s) => copiedAll(s, [0, 1]), `${topic} replicated`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  // The source connector was paused, deleted and re-created: the next file needs MM2 copying again.
  await waitUntilReplicating(state);
});

describe("operator actions raise nothing", () => {
  it("source connector paused for longer than the stall threshold: PAUSED shown, lag exact, no TASK_STALLED", { timeout: 120_000 }, async () => {
    await runLag(state, { seconds: 0 });
    try {
      const pausedAt = Date.now();
      let snapshot = await runtime.collector.runCycle();
      while (Date.now() - pausedAt < stallAfterMs + 8000) {
        await produce(0, 20);
        await sleep(2000);
        snapshot = await runtime.collector.runCycle();
      }
      const connector = snapshot.connect[0]!.connectors.find((c) => c.name === names.source)!;
      expect([connector.state, ...connector.tasks.map((t) => t.state)]).toEqual(["PAUSED", "PAUSED"]);
      const sourceEnd = (await fetchLogEnds(east, topic)).get(0)!.high;
      const row = rowOf(snapshot, 0)!;
      expect(row.sourceLogEnd).toBe(sourceEnd);
      expect(row.lag).toBe(sourceEnd - row.mm2Position!);
      expect(row.lag! > 0n).toBe(true);
    } finally {
      await runResume(state);
    }
    await cycleUntil((s) => copiedAll(s, [0, 1]), "caught up after resume");
    expect(raisedAbout().map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });

  it("source connector deleted and re-created under its name: MM2 resumes where it was, no alert", { timeout: 120_000 }, async () => {
    const config = (await getConnectors(endpoint)).find((c) => c.name === names.source)!.config;
    await deleteConnector(endpoint, names.source);
    for (const p of [0, 1]) await produce(p, 30);
    await runtime.collector.runCycle();
    await putConnectorConfig(endpoint, names.source, config);
    await waitForConnectorsRunning(endpoint, [names.source]);
    await cycleUntil((s) => copiedAll(s, [0, 1]), "caught up after re-creation");
    // Kafka's view: every source record is on the target exactly once.
    for (const p of [0, 1]) {
      const values = await readPartition(state, west, `east.${topic}`, p, 0n, produced.get(p)!);
      expect(values.map((r) => (JSON.parse(r.value) as { offset: number }).offset)).toEqual(Array.from({ length: produced.get(p)! }, (_, i) => i));
    }
    await runtime.collector.runCycle();
    expect(raisedAbout().map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });

  it("source connector STOPPED past the not-running threshold, then restarted with its tasks: no alert", { timeout: 150_000 }, async () => {
    await stopConnector(endpoint, names.source);
    try {
      // A stopped connector has no task configs left (KIP-875): its task statuses go once the tasks are shut down.
      await waitForConnector(endpoint, names.source, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED with no task");
      const stoppedAt = Date.now();
      while (Date.now() - stoppedAt < notRunningAfterMs + 8000) {
        await produce(0, 20);
        await sleep(2000);
        await runtime.collector.runCycle();
      }
    } finally {
      await resumeConnector(endpoint, names.source);
    }
    await waitForConnector(endpoint, names.source, allTasks("RUNNING"), "RUNNING again");
    // POST /connectors/<name>/restart?includeTasks=true&onlyFailed=false: RESTARTING for seconds, then RUNNING.
    await restartConnector(endpoint, names.source, false);
    await runtime.collector.runCycle();
    await waitForConnector(endpoint, names.source, allTasks("RUNNING"), "RUNNING after the restart");
    await cycleUntil((s) => copiedAll(s, [0, 1]), "caught up after the stop and the restart");
    expect(raisedAbout().map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });

  it("partition count of a source topic increased: the new partition joins the flow and is copied, no alert", { timeout: 120_000 }, async () => {
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    try {
      await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
    } finally {
      await admin.disconnect();
    }
    await produce(2, 40);
    for (const p of [0, 1]) await produce(p, 10);
    // MM2 adds the partition on its next topic refresh (refresh.topics.interval.seconds: 5 in the sandbox).
    const snapshot = await cycleUntil((s) => copiedAll(s, [0, 1, 2]), "the new partition copied", 90_000);
    expect(rowOf(snapshot, 2)!.mm2Position).toBe(40n);
    expect((await fetchLogEnds(west, `east.${topic}`)).get(2)!.high).toBe(40n);
    expect(raisedAbout().map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });

  it("every MM2 connector restarted with its tasks through REST while a group commits: checkpoints go on, no alert", { timeout: 150_000 }, async () => {
    // Kafka's MirrorConnectorsIntegrationBaseTest.testRestartReplication restarts MM2 whole: source, checkpoint and
    // heartbeat connectors, each with its tasks (POST /connectors/<name>/restart?includeTasks=true).
    const group = `opstest-group-${topic.slice(-8)}`;
    const checkpointOf = (s: Snapshot, partition: number) =>
      s.flows[0]?.checkpoints.find((c) => c.group === group && c.topic === topic && c.partition === partition);
    const commit = async (behind: number): Promise<Map<number, bigint>> => {
      const committed = new Map([0, 1].map((p) => [p, BigInt((produced.get(p) ?? 0) - behind)]));
      const admin = sandboxKafka(east).admin();
      await admin.connect();
      try {
        await admin.setOffsets({ groupId: group, topic, partitions: [...committed].map(([partition, offset]) => ({ partition, offset: String(offset) })) });
      } finally {
        await admin.disconnect();
      }
      return committed;
    };
    const checkpointed = (s: Snapshot, committed: Map<number, bigint>) => [...committed].every(([p, o]) => checkpointOf(s, p)?.upstream === o);
    const before = await commit(10);
    await cycleUntil((s) => checkpointed(s, before), `MM2 checkpointed ${group}`, 90_000);

    const all = [names.source, names.checkpoint, names.heartbeat];
    for (const name of all) await restartConnector(endpoint, name, false);
    await runtime.collector.runCycle();
    for (const name of all) await waitForConnector(endpoint, name, allTasks("RUNNING"), `${name} RUNNING after the restart`);
    for (const p of [0, 1]) await produce(p, 20);
    await cycleUntil((s) => copiedAll(s, [0, 1]), "copied after the restart", 90_000);
    // Caught up: a restarted checkpoint task rebuilds its sync store from the compacted offset-syncs topic, which may
    // keep only each partition's newest sync, and MM2 cannot translate (so never checkpoints) an offset below that
    // (MirrorCheckpointTask, OffsetSyncStore). A group at the log end is always translatable.
    const after = await commit(0);
    await cycleUntil((s) => checkpointed(s, after), "checkpointed after the restart", 90_000);
    for (let i = 0; i < 3; i++) await runtime.collector.runCycle();
    const raised = [...raisedAbout(), ...runtime.alerts.list({}).filter((a) => a.group === group)];
    expect(raised.map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });
});
