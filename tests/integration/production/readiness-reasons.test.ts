import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getCoverage } from "@/app/api/flows/[flow]/coverage/route";
import { GET as getReadiness } from "@/app/api/flows/[flow]/readiness/route";
import { resumeConnector, stopConnector } from "@/lib/connect";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { connectorNames } from "@/lib/sandbox/mm2-connectors";
import { allTasks, waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import type { FlowReadiness, ReadinessCheck } from "@/lib/views/readiness";
import { readReadinessOf } from "@/lib/views/readiness-data";
import { callRoute, createSandboxRuntime, cycleUntil, deleteLeftovers } from "../support/runtime";

/**
 * Readiness reasons driven for real against the sandbox's MM2 (coverage-drift.test.ts covers the empty filter,
 * another partition count and a shorter retention):
 * - the target topic's max.message.bytes lowered with Kafka's ConfigCommand below the source's default: the
 *   settings check is degraded with the exact values, the coverage row names the setting;
 * - a group committed on a replicated topic whose name MM2's default `groups.exclude` (`console-consumer-.*`)
 *   leaves out, beside a control group with the same offsets: MM2 checkpoints the control group and never the
 *   other (deterministic: the filter, not a timing, decides), and the groups check names it;
 * - the source connector stopped (`PUT /connectors/{name}/stop`): not ready, naming the connector; resumed after,
 *   since the files after this one expect MM2 copying.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state, 5);
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const connector = connectorNames("east", "west").source;
const FLOW = "east->west";
const flowParam = encodeURIComponent(FLOW);
const id = randomUUID().slice(0, 8);
const topic = `ready-${id}`;
const remote = `east.${topic}`;
const checkpointedGroup = `ready-${id}`;
const excludedGroup = `console-consumer-ready-${id}`;

const readinessNow = (): FlowReadiness => {
  const model = runtime.pipeline.latest()!;
  return readReadinessOf(model, model.snapshot.flows.find((f) => f.id === FLOW)!);
};
const checkOf = (r: FlowReadiness, checkId: ReadinessCheck["id"]) => r.checks.find((c) => c.id === checkId);

/** Runs cycles until the flow's readiness satisfies `check`; the timeout names the last verdict's checks. */
const cycleUntilReadiness = (check: (r: FlowReadiness) => boolean, what: string, timeoutMs = 60_000) =>
  cycleUntil(runtime.collector, () => check(readinessNow()), what, { timeoutMs, describe: () => JSON.stringify(readinessNow().checks.map((c) => [c.id, c.status, c.message])) });

/** Kafka's own ConfigCommand on the target topic (`--add-config k=v` or `--delete-config k`). */
const alterTargetTopic = (...args: string[]) =>
  runKafkaTool(state, "kafka.admin.ConfigCommand", ["--bootstrap-server", west, "--entity-type", "topics", "--entity-name", remote, "--alter", ...args]);

async function readReadinessRoute(): Promise<{ verdict: string; checks: { id: string; status: string; message: string; items: { text: string; href: string | null }[] }[] }> {
  const { status, body } = await callRoute(getReadiness, `/api/flows/${flowParam}/readiness`, { flow: flowParam });
  expect(status).toBe(200);
  return body as unknown as Awaited<ReturnType<typeof readReadinessRoute>>;
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, seq) => ({ value: `r-${seq}` })) });
  await producer.disconnect();
  await cycleUntil(
    runtime.collector,
    (s) => s.flows.find((f) => f.id === FLOW)?.partitions.some((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 10n) === true,
    `${topic} copied into ${remote}`,
  );
});

afterAll(async () => {
  // Later files share the sandbox: leave no topic or group of this file behind (MM2 synced the control group to west).
  await deleteLeftovers([
    { bootstrap: east, topics: [topic], groups: [checkpointedGroup, excludedGroup] },
    { bootstrap: west, topics: [remote], groups: [checkpointedGroup, excludedGroup] },
  ]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("the target topic's max.message.bytes lowered below the source's", () => {
  it("degrades the settings check with both values, and the coverage row names the setting", async () => {
    try {
      await alterTargetTopic("--add-config", "max.message.bytes=65536");
      const text = `${remote}: max.message.bytes=65536, source accepts 1048588: larger records stop MM2's copy`;
      await cycleUntilReadiness((r) => checkOf(r, "configs")?.items.some((i) => i.text === text) === true, "the max.message.bytes reason");
      const configs = checkOf(readinessNow(), "configs")!;
      expect(configs.status).toBe("degraded");
      expect(configs.items.find((i) => i.text === text)?.href).toBe(`/flows/${flowParam}/topics/${topic}`);
      const route = await readReadinessRoute();
      expect(["degraded", "not-ready"]).toContain(route.verdict);
      expect(route.checks.find((c) => c.id === "configs")?.items.map((i) => i.text)).toContain(text);

      const { status, body } = await callRoute(getCoverage, `/api/flows/${flowParam}/coverage?q=${topic}`, { flow: flowParam });
      expect(status).toBe(200);
      const items = body.items as { topic: string; status: string; targetTopic: string; weaker: string[] }[];
      expect(items.map((r) => [r.topic, r.status, r.targetTopic, r.weaker])).toEqual([[topic, "replicated", remote, ["max.message.bytes"]]]);
    } finally {
      await alterTargetTopic("--delete-config", "max.message.bytes");
    }
    // MM2 syncs only the source's non-default configs, so the lowered limit stayed until removed: the reason goes.
    await cycleUntilReadiness((r) => !checkOf(r, "configs")!.items.some((i) => i.text.startsWith(`${remote}:`)), "the reason gone after the restore");
  });
});

describe("a consumer group on a replicated topic that MM2's groups filter leaves out", () => {
  it("is never checkpointed while its control group is, and the groups check names it", async () => {
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    for (const groupId of [checkpointedGroup, excludedGroup]) await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: "10" }] });
    await admin.disconnect();

    // MM2 lists both groups in the same refresh; the control group's checkpoint proves it ran after both commits.
    // Offset 10 (the log end) translates through the sync of offset 9 (MM2's delayed sync, promoted on its offset
    // flush) to exactly 10; an earlier checkpoint may still say 1 (the first sync, 0, plus one).
    const seen = await cycleUntil(
      runtime.collector,
      (s) => s.flows.find((f) => f.id === FLOW)?.checkpoints.some((c) => c.group === checkpointedGroup && c.topic === topic && c.downstream === 10n) === true,
      `MM2's checkpoint of ${checkpointedGroup}`,
      { timeoutMs: 60_000 },
    );
    const checkpoints = seen.flows.find((f) => f.id === FLOW)!.checkpoints.filter((c) => c.topic === topic);
    expect(checkpoints.some((c) => c.group === excludedGroup)).toBe(false);
    expect(checkpoints.filter((c) => c.downstream === 10n).map((c) => [c.group, c.partition, c.upstream])).toEqual([[checkpointedGroup, 0, 10n]]);

    const translation = runtime.pipeline.latest()!.translations.get(FLOW)!;
    expect(translation.excludedGroups).toContain(excludedGroup);
    expect(translation.excludedGroups).not.toContain(checkpointedGroup);
    const reason = `${excludedGroup}: MM2's groups filter leaves it out (restarts from its reset policy after failover)`;
    const groups = checkOf(readinessNow(), "groups")!;
    expect(groups.status).toBe("degraded");
    expect(groups.items).toContainEqual({ text: reason, href: null });
    expect(groups.items.some((i) => i.text.startsWith(`${checkpointedGroup}:`) || i.text.startsWith(`${checkpointedGroup} `))).toBe(false);
    const route = await readReadinessRoute();
    expect(["degraded", "not-ready"]).toContain(route.verdict);
    expect(route.checks.find((c) => c.id === "groups")?.items.map((i) => i.text)).toContain(reason);
  });
});

describe("MM2's source connector stopped", () => {
  it("is not ready, naming the connector, and ready to copy again once resumed", async () => {
    const reason = `${connector} (source): connector STOPPED`;
    try {
      await stopConnector(endpoint, connector);
      await waitForConnector(endpoint, connector, (c) => c.state === "STOPPED" && c.tasks.length === 0, "STOPPED");
      await cycleUntilReadiness((r) => checkOf(r, "connectors")?.items.some((i) => i.text === reason) === true, "the stopped connector's reason");
      const route = await readReadinessRoute();
      const connectors = route.checks.find((c) => c.id === "connectors");
      expect([route.verdict, route.checks[0]?.status, connectors?.status]).toEqual(["not-ready", "not-ready", "not-ready"]);
      expect(connectors?.message.startsWith(reason)).toBe(true);
      expect(connectors?.items[0]).toEqual({ text: reason, href: "/connect" });
    } finally {
      await resumeConnector(endpoint, connector);
      await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING", 60_000);
    }
    // Copying again: a record produced now reaches the target.
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ value: "after-resume" }] });
    await producer.disconnect();
    await cycleUntil(
      runtime.collector,
      (s) => s.flows.find((f) => f.id === FLOW)?.partitions.some((p) => p.topic === topic && p.targetLogEnd === 11n) === true,
      `the record produced after the resume copied to ${remote}`,
    );
    expect((await fetchLogEnds(west, remote)).get(0)?.high).toBe(11n);
    expect(checkOf(readinessNow(), "connectors")?.items.some((i) => i.text.startsWith(`${connector} `))).toBe(false);
  });
});
