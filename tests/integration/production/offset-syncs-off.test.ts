import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getGroup } from "@/app/api/flows/[flow]/groups/[group]/route";
import { GET as getFlow } from "@/app/api/flows/[flow]/route";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, getMirrorSourceOffsets, pauseConnector, putConnectorConfig, resumeConnector } from "@/lib/connect";
import { readPartition, runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers, waitForTasksPaused } from "../support/runtime";

/**
 * MM2 with `emit.offset-syncs.enabled=false` (KIP-1031, Kafka 3.9+): a second flow west -> east on the shared sandbox,
 * copying one topic, with a consumer group on west that has committed offsets. MM2 writes no offset syncs (ground
 * truth: Kafka's TopicCommand lists no offset-syncs topic for east on west), so the flow says translation is off by
 * MM2's configuration, the group's re-read figures are unavailable with that reason, and no alert is raised for it.
 * Then DATA_LOSS from Connect's positions alone: a purge under traffic while MM2 is paused is reported exactly (MM2
 * caught up on both sides of the jump), checked against the records missing on the target by content; a purge of
 * records MM2 had copied while Connect's flush still trailed is no loss, or a bound that says "possibly none".
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

const targetTopic = `west.${topic}`;
const row = (s: Snapshot) => s.flows.find((f) => f.id === FLOW_ID)?.partitions.find((p) => p.topic === topic && p.partition === 0);

async function produce(from: number, count: number): Promise<void> {
  const producer = sandboxKafka(west).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `nosyncs-${from + i}` })) });
  await producer.disconnect();
}

async function purgeTo(offset: bigint): Promise<void> {
  const admin = sandboxKafka(west).admin();
  await admin.connect();
  // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first (Kafka 4.3).
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: offset.toString() }] });
  await admin.disconnect();
}

/** MM2's position as Connect last flushed it (its offset is the last copied record's; the position is one above). */
async function readFlushedPosition(): Promise<bigint | null> {
  const found = (await getMirrorSourceOffsets(endpoint, connector)).find((o) => o.topic === topic && o.partition === 0);
  return found === undefined ? null : found.offset + 1n;
}

/** Waits, without running a cycle, until the target holds `targetEnd` records and Connect flushed `position`. */
async function waitForCopied(targetEnd: bigint, position: bigint): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const high = (await fetchLogEnds(east, targetTopic)).get(0)?.high;
    const flushed = await readFlushedPosition();
    if (high === targetEnd && flushed === position) return;
    if (Date.now() > deadline) throw new Error(`target end ${high} (want ${targetEnd}), flushed ${flushed} (want ${position}) after 120 s`);
    await sleep(1000);
  }
}

/** Indexes i of `nosyncs-i` among `[0, end)` that the target does not hold: the records lost, by content. */
async function listMissingOnTarget(end: number): Promise<number[]> {
  const high = (await fetchLogEnds(east, targetTopic)).get(0)!.high;
  const held = new Set((await readPartition(state, east, targetTopic, 0, 0n, Number(high))).map((r) => r.value));
  return Array.from({ length: end }, (_, i) => i).filter((i) => !held.has(`nosyncs-${i}`));
}

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

  it("reports a purge under traffic exactly from MM2's position jump, as the target's missing records say", { timeout: 420_000 }, async () => {
    // The cycle before the jump: MM2 caught up at 100 (Connect's flush equals the log end), target 0..99.
    await cycleUntil((s) => row(s)?.mm2Position === 100n && row(s)?.sourceLogEnd === 100n && row(s)?.targetLogEnd === 100n, "caught up at 100");
    await pauseConnector(endpoint, connector);
    await waitForTasksPaused(endpoint, connector);
    // Traffic while MM2 is paused (100..199), a purge of 100..149 it never copied, more traffic, MM2 back, more traffic.
    await produce(100, 100);
    await purgeTo(150n);
    await produce(200, 50);
    await resumeConnector(endpoint, connector);
    await produce(250, 50);
    // No cycle until MM2 has copied 150..299 and Connect has flushed 300: the next cycle finds it caught up again.
    await waitForCopied(250n, 300n);
    const after = await runtime.collector.runCycle();
    expect(row(after)).toMatchObject({ sourceLogStart: 150n, sourceLogEnd: 300n, mm2Position: 300n, targetLogEnd: 250n });

    // Ground truth by content: the target lacks exactly nosyncs-100..149, i.e. source offsets 100..149.
    const missing = await listMissingOnTarget(300);
    expect(missing).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    const loss = runtime.alerts.list({ flow: FLOW_ID }).filter((a) => a.topic === topic && a.type === "DATA_LOSS");
    expect(loss.map((a) => a.evidence)).toMatchObject([
      { firstLostOffset: "100", lastLostOffset: "149", lostCount: "50", lostCountIs: "exact", exact: true, detectedBy: "position-jump" },
    ]);
    expect(loss[0]!.summary).toBe(`50 records of ${topic}/0 were deleted at west before MM2 copied them (offsets 100–149)`);
  });

  it("look-alike: a purge of records MM2 had copied beyond Connect's last flush is no loss, or a bound of possibly none", { timeout: 420_000 }, async () => {
    // Catch a cycle that reads Connect's flush behind what MM2 had already written to the target (flushes every 5 s).
    let end = 300;
    let staleSeen = false;
    for (let attempt = 0; attempt < 6 && !staleSeen; attempt++) {
      await produce(end, 50);
      end += 50;
      const targetEnd = BigInt(end - 50);
      const copied = Date.now() + 60_000;
      while ((await fetchLogEnds(east, targetTopic)).get(0)?.high !== targetEnd) {
        if (Date.now() > copied) throw new Error(`MM2 did not copy up to ${end} within 60 s`);
        await sleep(200);
      }
      const seen = await runtime.collector.runCycle();
      staleSeen = row(seen)!.targetLogEnd === targetEnd && row(seen)!.mm2Position! < BigInt(end);
      if (!staleSeen) await waitForCopied(targetEnd, BigInt(end));
    }
    process.stderr.write(`[offset-syncs-off] look-alike: a cycle ${staleSeen ? "read" : "never read"} Connect's flush behind the target\n`);
    // Every record MM2 copied is deleted at the source, then Connect flushes.
    await purgeTo(BigInt(end));
    await waitForCopied(BigInt(end - 50), BigInt(end));
    await runtime.collector.runCycle();
    await runtime.collector.runCycle();

    expect(await listMissingOnTarget(end)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    const loss = runtime.alerts.list({ flow: FLOW_ID }).filter((a) => a.topic === topic && a.type === "DATA_LOSS");
    const later = loss.filter((a) => a.evidence.firstLostOffset !== "100");
    // Seen stale, the jump is bounded: at most the unflushed span, possibly none; seen flushed, nothing at all.
    if (staleSeen) expect(later.map((a) => [a.severity, a.evidence.lostCountIs, a.evidence.lostAtLeast])).toEqual([["warning", "at-most", "0"]]);
    else expect(later).toEqual([]);
    expect(later.every((a) => /possibly none\)$/.test(a.summary))).toBe(true);
    expect(loss.filter((a) => a.evidence.firstLostOffset === "100").map((a) => a.evidence.lostCount)).toEqual(["50"]);
  });
});
