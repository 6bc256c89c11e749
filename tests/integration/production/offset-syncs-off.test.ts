import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getGroup } from "@/app/api/flows/[flow]/groups/[group]/route";
import { GET as getFlow } from "@/app/api/flows/[flow]/route";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";

/**
 * MM2 with `emit.offset-syncs.enabled=false` (KIP-1031, Kafka 3.9+): a second flow west -> east on the shared sandbox,
 * copying one topic, with a consumer group on west that has committed offsets. MM2 writes no offset syncs (ground
 * truth: Kafka's TopicCommand lists no offset-syncs topic for east on west), so the flow says translation is off by
 * MM2's configuration, the group's re-read figures are unavailable with that reason, and no alert is raised for it.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
const FLOW_ID = "west->east";
const flowParam = encodeURIComponent(FLOW_ID);
const topic = `nosyncs-${randomUUID().slice(0, 8)}`;
const group = `nosyncs-app-${randomUUID().slice(0, 6)}`;
const connector = "h70-mm2-west-east-nosyncs";
/** The topic MM2 would write this flow's syncs to (MirrorClientConfig: mm2-offset-syncs.<target>.internal, on the source). */
const syncsTopic = "mm2-offset-syncs.east.internal";

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

beforeAll(async () => {
  await ensureTopics(west, [{ topic, partitions: 1 }]);
  const producer = sandboxKafka(west).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ partition: 0, value: `nosyncs-${i}` })) });
  await producer.disconnect();
  const admin = sandboxKafka(west).admin();
  await admin.connect();
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: "40" }] });
  await admin.disconnect();
  const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
  const config = sourceConnectorConfig({ source: cluster("west"), target: cluster("east") }, {
    topics: topic,
    "emit.offset-syncs.enabled": "false",
    // The sandbox worker runs on west: its producer must be pointed at east.
    "producer.override.bootstrap.servers": east,
  });
  // MirrorSourceConnector.validate refuses any `offset-syncs.` setting beside emit.offset-syncs.enabled=false.
  delete config["offset-syncs.topic.replication.factor"];
  await putConnectorConfig(endpoint, connector, config);
}, 60_000);

afterAll(async () => {
  await deleteConnector(endpoint, connector).catch(() => undefined);
  // MM2 copies heartbeats topics whatever the filter: west's `heartbeats` became east's `west.heartbeats`.
  await deleteLeftovers([
    { bootstrap: west, topics: [topic], groups: [group] },
    { bootstrap: east, topics: [`west.${topic}`, "west.heartbeats"] },
  ]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("a flow whose MirrorSourceConnector sets emit.offset-syncs.enabled=false", () => {
  it("says translation is off by MM2's configuration, shows no re-read figures, and raises nothing", { timeout: 300_000 }, async () => {
    const row = (s: Snapshot) => s.flows.find((f) => f.id === FLOW_ID)?.partitions.find((p) => p.topic === topic && p.partition === 0);
    const seen = await cycleUntil((s) => row(s)?.targetLogEnd === 100n && row(s)?.mm2Position === 100n, `${topic} copied to east and flushed by Connect`);
    expect(seen.flows.find((f) => f.id === FLOW_ID)?.sourceTaskSettings).toEqual({ offsetSyncsEnabled: false, autoOffsetReset: "earliest" });
    expect(row(seen)?.positionSource).toBe("committed");
    expect((await fetchLogEnds(east, `west.${topic}`)).get(0)?.high).toBe(100n);
    // Kafka's own tool: MM2 created no offset-syncs topic for this flow, so it wrote no syncs.
    const listed = await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", west, "--list"]);
    expect(listed.split("\n").map((l) => l.trim())).not.toContain(syncsTopic);

    const flow = await callRoute(getFlow, `/api/flows/${flowParam}?q=${topic}`, { flow: flowParam });
    expect(flow.status).toBe(200);
    const notes = (flow.body.flow as { settingNotes: { setting: string; value: string; meaning: string }[] }).settingNotes;
    expect(notes.map((n) => [n.setting, n.value])).toEqual([["emit.offset-syncs.enabled", "false"]]);
    expect(notes[0]!.meaning).toMatch(/^offset translation off by MM2's configuration/);

    const detail = await callRoute(getGroup, `/api/flows/${flowParam}/groups/${group}`, { flow: flowParam, group });
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    const rows = (detail.body.partitions as { topic: string; committed: string; translation: { kind: string; reason?: string }; reread: unknown; failoverReread: unknown }[])
      .filter((r) => r.topic === topic);
    expect(rows.map((r) => [r.committed, r.translation.kind, r.translation.reason, r.reread, r.failoverReread])).toEqual([
      ["40", "untranslatable", "offset-syncs-disabled", null, null],
    ]);

    // Half a minute of cycles: no TRANSLATION_ERROR, DATA_LOSS or any other alert on this flow (CHECKPOINT_STALE's
    // clock is longer: unit/translation/translate-flow proves it stays quiet).
    for (let i = 0; i < 6; i++) {
      await sleep(5000);
      await runtime.collector.runCycle();
    }
    const alerts = runtime.alerts.list({}).filter((a) => a.flow === FLOW_ID);
    expect(alerts.map((a) => `${a.type} ${a.topic ?? a.group ?? ""}: ${a.summary}`)).toEqual([]);
  });
});
