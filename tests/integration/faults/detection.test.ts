import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getAlerts } from "@/app/api/alerts/route";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { getMirrorSourceOffsets } from "@/lib/connect";
import { describeTopicIds, topicIdToHex } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { runFailTask, runLag, runPurge, runRecover, runResetNone, runResume, runTopicReset } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

/**
 * Each sandbox fault, injected for real, raises exactly the expected alert with exact evidence
 * in the first cycle that sees it. Faults run on topics of their own, so other files' topics stay
 * clean. TASK_STALLED uses stallAfterMs = 15 s to stay short.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const runtime = createSandboxRuntime(state, 5, { stallAfterMs: 15_000 });
const topic = `losstest-${randomUUID().slice(0, 8)}`;

/** Waits, without running a cycle, until Connect holds `position` (last copied offset + 1) for every partition of `topic`. */
async function waitForCommittedOnNewTopic(topic: string, position: bigint): Promise<void> {
  const endpoint = { url: state.connect.url, timeoutMs: 10_000 };
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(1000)) {
    const offsets = (await getMirrorSourceOffsets(endpoint, "mm2-east-west-source")).filter((o) => o.topic === topic);
    if (offsets.length === 2 && offsets.every((o) => o.offset + 1n === position)) return;
  }
  throw new Error(`MM2 did not commit position ${position} on both partitions of the recreated ${topic} within 90 s`);
}

async function produce(name: string, partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic: name, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic: name, partition, seq, run: "faults" }) })) });
  await producer.disconnect();
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

const firing = (type: string, t?: string, partition?: number): AlertRecord[] =>
  runtime.alerts.list({ state: "firing", type }).filter((a) => (t === undefined || a.topic === t) && (partition === undefined || a.partition === partition));

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 4 }]);
  for (let p = 0; p < 4; p++) await produce(topic, p, 20);
  await cycleUntil((s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n).length === 4, `${topic} replicated`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  // fail-task and reset-none reconfigured MM2's source connector: the next file needs it copying again.
  await waitUntilReplicating(state);
});

describe("faults injected in the sandbox raise exactly the expected alert with exact evidence", () => {
  it("purge while MM2 is paused: one DATA_LOSS for the partition with the exact lost range, in the first cycle", async () => {
    const report = await runPurge(state, { topic, partition: 0, records: 500, resume: false });
    try {
      await runtime.collector.runCycle();
      const alerts = firing("DATA_LOSS", topic);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.partition).toBe(0);
      expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
      expect(report.lostCount).toBe("500");
    } finally {
      await runResume(state);
    }
    // After MM2 resumes and skips ahead, the same loss stays one alert with the same evidence.
    await sleep(8000);
    await runtime.collector.runCycle();
    const alerts = firing("DATA_LOSS", topic, 0);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.evidence.lostCount).toBe(report.lostCount);
  });

  it("purge with MM2 resuming and skipping before Gapwatch looks: DATA_LOSS with the exact count from the offset syncs", async () => {
    await runtime.collector.runCycle();
    const report = await runPurge(state, { topic, partition: 1, records: 300, resume: true });
    await sleep(8000); // MM2 skips to the new log start and writes an offset sync for the gap
    await runtime.collector.runCycle();
    const alerts = firing("DATA_LOSS", topic, 1);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
    const { status, body } = await callRoute(getAlerts, "/api/alerts?type=DATA_LOSS&state=firing", {});
    expect(status).toBe(200);
    const fromApi = (body.alerts as { topic: string; partition: number; evidence: Record<string, string> }[]).filter((a) => a.topic === topic);
    expect(fromApi.map((a) => [a.partition, a.evidence.lostCount]).sort()).toEqual([[0, "500"], [1, report.lostCount]]);
  });

  it("fail-task: TASK_FAILED for MM2's source task with the root cause of its trace", async () => {
    const failed = await runFailTask(state);
    try {
      await runtime.collector.runCycle();
      const alerts = firing("TASK_FAILED").filter((a) => a.evidence.connector === failed.connector);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.evidence.taskId).toBe(failed.taskId);
      expect(alerts[0]!.evidence.rootCause).toBe(failed.rootCause);
      expect(String(alerts[0]!.evidence.rootCause)).toContain("Unexpected type in Cast transformation");
    } finally {
      await runRecover(state);
    }
  });

  it("topic-reset: TOPIC_RESET with the old and the new topic ID", async () => {
    const reset = `resettest-${randomUUID().slice(0, 8)}`;
    await ensureTopics(east, [{ topic: reset, partitions: 2 }]);
    await produce(reset, 0, 40);
    await cycleUntil((s) => s.flows[0]!.partitions.some((p) => p.topic === reset && p.partition === 0 && p.lag === 0n && p.targetLogEnd === 40n && p.committedPosition === 40n), `${reset} replicated and committed`);
    // MM2 paused through the reset, so Gapwatch sees the new topic while Connect still holds the old topic's position
    // (as in the bench at 10,000 partitions, where MM2 took cycles to commit on a recreated topic).
    await runLag(state, { seconds: 0 });
    let report: Awaited<ReturnType<typeof runTopicReset>>;
    let snapshot: Snapshot;
    try {
      report = await runTopicReset(state, { topic: reset, records: 10 });
      snapshot = await runtime.collector.runCycle();
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
    expect(snapshot.flows[0]!.partitions.find((p) => p.topic === reset && p.partition === 0)!.sourceTopicId).toBe(topicIdToHex(report.newTopicId));
    // Connect's committed position drops from the old topic's 40 to the new topic's 5 once MM2 commits on it: that
    // drop is the reset, not a position moved back by hand (the bench saw "moved back from 100 to 10").
    const committedOnNewTopic = (s: Snapshot) => {
      const committed = s.flows[0]!.partitions.find((p) => p.topic === reset && p.partition === 0)?.committedPosition;
      return committed !== undefined && committed !== null && committed <= 5n;
    };
    await cycleUntil(committedOnNewTopic, `MM2 to commit its position on the recreated ${reset}/0`, 120_000);
    await runtime.collector.runCycle();
    expect(firing("MM2_POSITION_MOVED", reset)).toEqual([]);
    expect(firing("TOPIC_RESET", reset).length).toBeGreaterThanOrEqual(1);
  }, 330_000);

  it("topic-reset seen across a cycle in which the topic is gone: TOPIC_RESET against the last known topic ID", async () => {
    const reset = `resetgone-${randomUUID().slice(0, 8)}`;
    await ensureTopics(east, [{ topic: reset, partitions: 2 }]);
    await produce(reset, 0, 30);
    await produce(reset, 1, 30);
    const committed = (s: Snapshot) => s.flows[0]!.partitions.filter((p) => p.topic === reset && p.lag === 0n && p.committedPosition === 30n).length === 2;
    await cycleUntil(committed, `${reset} replicated and committed`);
    // The bench at load 13 deleted and recreated latency-reset-0 across a cycle that read the topic gone, and MM2 had
    // copied the new topic and committed on it before the next cycle: the only sign left was the new topic ID, and
    // the marks that kept the old one were forgotten when the partitions left the flow (2026-12-02 21:26).
    const report = await runTopicReset(state, {
      topic: reset,
      records: 10,
      whileDeleted: async () => {
        const gone = await runtime.collector.runCycle();
        expect(gone.flows[0]!.partitions.some((p) => p.topic === reset)).toBe(false);
      },
    });
    await waitForCommittedOnNewTopic(reset, 5n);
    const seen = await runtime.collector.runCycle();
    expect(seen.flows[0]!.partitions.filter((p) => p.topic === reset).map((p) => [p.partition, p.sourceLogEnd, p.committedPosition]))
      .toEqual([[0, 5n, 5n], [1, 5n, 5n]]);
    const alerts = firing("TOPIC_RESET", reset).sort((a, b) => (a.partition ?? 0) - (b.partition ?? 0));
    expect(alerts.map((a) => a.partition)).toEqual([0, 1]);
    for (const a of alerts) {
      expect(a.evidence).toMatchObject({
        detectedBy: "topic-id-changed",
        comparedWith: "last-known",
        oldTopicId: topicIdToHex(report.oldTopicId),
        newTopicId: topicIdToHex(report.newTopicId),
      });
    }
    expect(firing("MM2_POSITION_MOVED", reset)).toEqual([]);
  }, 240_000);

  it("auto.offset.reset=none then a purge: MM2 stays RUNNING without progress and TASK_STALLED names the partition", async () => {
    await runResetNone(state);
    try {
      await cycleUntil((s) => s.flows[0]!.partitions.some((p) => p.topic === topic && p.partition === 2 && p.lag === 0n), "partition 2 caught up");
      const report = await runPurge(state, { topic, partition: 2, records: 100, resume: true });
      // The purge deleted everything MM2 had not copied; a stall needs data records waiting.
      await produce(topic, 2, 20);
      await cycleUntil(() => firing("TASK_STALLED").some((a) => String(a.evidence.partitions).split(",").includes(`${topic}/2`)), "TASK_STALLED", 90_000);
      // With the default (earliest) MM2 would have skipped to the new log start within seconds;
      // with none it stays where it was while the task reports RUNNING.
      await sleep(10_000);
      const snapshot = await runtime.collector.runCycle();
      const p2 = snapshot.flows[0]!.partitions.find((p) => p.topic === topic && p.partition === 2)!;
      expect(p2.mm2Position).toBe(BigInt(report.mm2Position));
      const connect = snapshot.connect[0]!.connectors.find((c) => c.name === "mm2-east-west-source")!;
      expect(connect.tasks.every((t) => t.state === "RUNNING")).toBe(true);
      const alert = firing("TASK_STALLED").find((a) => String(a.evidence.partitions).split(",").includes(`${topic}/2`))!;
      expect(Number(alert.evidence.stalledForMs)).toBeGreaterThanOrEqual(15_000);
      expect(p2.sourceLogStart).toBe(BigInt(report.newLogStart));
      process.stdout.write(`[faults] TASK_STALLED: ${alert.summary}\n`);
    } finally {
      await runRecover(state);
    }
  });
});
