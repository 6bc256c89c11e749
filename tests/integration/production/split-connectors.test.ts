import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { deleteConnector, getConnectors, putConnectorConfig } from "@/lib/connect";
import { connectorNames, sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep, stopProcess } from "@/lib/sandbox/processes";
import { startSecondConnectWorker } from "@/lib/sandbox/connect-control";
import type { SandboxConnectWorker } from "@/lib/sandbox/connect-worker";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";

/**
 * Two more MirrorSourceConnectors on the sandbox flow east->west (A and B, beside the sandbox's own connector),
 * operated as operators do:
 * - their filters overlap on one topic: MM2 copies it twice into the same remote topic (the target log end, read
 *   with Kafka's client, is twice the source's) → FLOW_CONFIG_WARNING topic-overlap naming A, B and the topic;
 * - a topic moved from A's filter to B's: B holds no offsets for it and starts from the log start (MM2's default
 *   auto.offset.reset=earliest), copying records 0–49 a second time (target log end 100 for 50 records) →
 *   TOPIC_CHANGED_CONNECTOR naming A and B with exactly 0–49, and no MM2_POSITION_MOVED or MM2_REDELIVERY;
 * - A deleted: MM2_CONNECTOR_MISSING (critical) naming A and its topic; the flow stays and B's topic is copied;
 * - C, for the same alias pair on a second Connect cluster (one extra worker): its topic joins the one flow with its
 *   positions from that cluster; the cluster stopped, only C's partition is unknown (naming C and the cluster);
 * - a topic moved from B to D, whose consumer has auto.offset.reset=latest, while 20 records were written: D starts
 *   at the log end and never copies them → TOPIC_CHANGED_CONNECTOR with exactly those offsets (Kafka's target log
 *   end short by exactly 20), not MM2_SKIPPED_BY_RESET or a forward move.
 * bench-.* is outside the sandbox connector's filter: only A and B copy these topics.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const notRunningAfterMs = 10_000;
let runtime: ReturnType<typeof createSandboxRuntime>;
const id = randomUUID().slice(0, 8);
const prefix = `bench-sc-${id}`;
const topics = { a: `${prefix}-a`, b: `${prefix}-b`, both: `${prefix}-both`, moved: `${prefix}-moved`, c: `${prefix}-c`, late: `${prefix}-late` };
/** A second Connect cluster (its own group and internal topics on west), named `second` in Gapwatch's config. */
let second: SandboxConnectWorker | null = null;
const base = connectorNames("east", "west").source;
const connectorA = `${base}-sc-${id}-a`;
const connectorB = `${base}-sc-${id}-b`;
const connectorC = `${base}-sc-${id}-c`;
const connectorD = `${base}-sc-${id}-d`;
const flowId = "east->west";
const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
const configOf = (pattern: string, extra: Record<string, string> = {}) =>
  sourceConnectorConfig({ source: cluster("east"), target: cluster("west") }, { topics: pattern, "topics.exclude": ".*[\\-\\.]internal, __.*", ...extra });

const flowOf = (s: Snapshot) => s.flows.find((f) => f.id === flowId);
const rowOf = (s: Snapshot, topic: string): FlowPartition | undefined => flowOf(s)?.partitions.find((p) => p.topic === topic && p.partition === 0);
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 150_000) =>
  cycleUntilSeen(runtime.collector, check, what, {
    timeoutMs,
    describe: (s) => Object.values(topics).map((t) => `${t}: ${JSON.stringify(rowOf(s, t), (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`).join("\n"),
  });
/** This file's alerts: on its topics, or naming its connectors. */
const ownAlerts = () =>
  runtime.alerts
    .list({ state: "firing" })
    .filter((a) => (a.topic ?? "").includes(prefix) || [connectorA, connectorB, connectorC, connectorD].some((name) => a.summary.includes(name)));

/** PUTs a connector config, again while the worker's group is still forming (Connect answers 409 then). */
async function putWhenReady(url: string, name: string, config: Record<string, string>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await putConnectorConfig({ url, timeoutMs: 15_000 }, name, config);
    } catch (err) {
      if (attempt >= 30) throw err;
      await sleep(2000);
    }
  }
}

async function produce(topic: string, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `${topic}-${i}` })) });
  await producer.disconnect();
}

const targetEnd = async (topic: string) => (await fetchLogEnds(west, `east.${topic}`)).get(0)?.high;

beforeAll(async () => {
  second = await startSecondConnectWorker(state, [
    `group.id=gapwatch-sc-${id}`,
    `offset.storage.topic=connect-offsets-sc-${id}`,
    `config.storage.topic=connect-configs-sc-${id}`,
    `status.storage.topic=connect-status-sc-${id}`,
  ]);
  runtime = createSandboxRuntime(state, 5, { notRunningAfterMs }, "", {}, [{ name: "second", url: second.url }]);
  await ensureTopics(east, Object.values(topics).map((topic) => ({ topic, partitions: 1 })));
  for (const topic of Object.values(topics)) await produce(topic, 50);
  await putConnectorConfig(endpoint, connectorA, configOf(`${prefix}-(a|both|moved)`));
  await putConnectorConfig(endpoint, connectorB, configOf(`${prefix}-(b|both|late)`));
}, 300_000);

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  for (const name of [connectorA, connectorB, connectorD]) await deleteConnector(endpoint, name).catch(() => undefined);
  if (second !== null) await stopProcess(second.process);
  await deleteLeftovers([
    { bootstrap: east, topics: Object.values(topics) },
    // The second Connect cluster's own topics go too (a later file's west->east filter must not meet them).
    { bootstrap: west, topics: [...Object.values(topics).map((t) => `east.${t}`), ...["offsets", "configs", "status"].map((k) => `connect-${k}-sc-${id}`)] },
  ]);
}, 120_000);

describe("MirrorSourceConnectors of one alias pair: overlap, a topic moved between them, one deleted", () => {
  it("warns of the overlap, reports the move's exact re-copy, and names the deleted connector", { timeout: 600_000 }, async () => {
    // Both connectors copy the overlapped topic: Kafka's own log end on the target is twice the 50 records.
    const copied = await cycleUntil(
      (s) => rowOf(s, topics.moved)?.targetLogEnd === 50n && rowOf(s, topics.moved)?.committedPosition === 50n && rowOf(s, topics.b)?.lag === 0n,
      "A and B copying",
    );
    expect(rowOf(copied, topics.moved)?.sourceConnector).toBe(connectorA);
    expect(rowOf(copied, topics.b)?.sourceConnector).toBe(connectorB);
    expect(flowOf(copied)!.connectors.sources).toEqual([base, connectorA, connectorB]);
    for (let i = 0; i < 60 && (await targetEnd(topics.both)) !== 100n; i++) {
      await sleep(1000);
      await runtime.collector.runCycle();
    }
    expect(await targetEnd(topics.both)).toBe(100n);
    await runtime.collector.runCycle();
    const overlap = ownAlerts().filter((a) => a.type === "FLOW_CONFIG_WARNING");
    expect(overlap.map((a) => [a.severity, a.evidence.kind, a.evidence.connector])).toEqual([["warning", "topic-overlap", `${connectorA} + ${connectorB}`]]);
    expect(overlap[0]!.summary).toContain(`source connectors ${connectorA} and ${connectorB} both take ${topics.both}:`);

    // The topic moves from A's filter to B's (A first, as an operator would): B starts it from the log start.
    const movedAt = Date.now();
    await putConnectorConfig(endpoint, connectorA, configOf(`${prefix}-(a|both)`));
    await putConnectorConfig(endpoint, connectorB, configOf(`${prefix}-(b|both|moved|late)`));
    const moved = await cycleUntil(
      (s) => rowOf(s, topics.moved)?.sourceConnector === connectorB && rowOf(s, topics.moved)?.committedPosition === 50n && rowOf(s, topics.moved)?.targetLogEnd === 100n,
      "B copying the moved topic again",
    );
    // Ground truth from Kafka: 50 records at the source, 100 on the target (each twice).
    expect((await fetchLogEnds(east, topics.moved)).get(0)!.high).toBe(50n);
    expect(await targetEnd(topics.moved)).toBe(100n);
    expect(rowOf(moved, topics.moved)?.copierChange).toMatchObject({ from: connectorA, fromPosition: 50n, logStartAtChange: 0n });
    const change = ownAlerts().filter((a) => a.type === "TOPIC_CHANGED_CONNECTOR");
    expect(change.map((a) => [a.severity, a.topic, a.partition, a.evidence.fromConnector, a.evidence.toConnector])).toEqual([
      ["warning", topics.moved, 0, connectorA, connectorB],
    ]);
    expect(change[0]!.evidence).toMatchObject({ outcome: "copied-again", firstAffectedOffset: "0", lastAffectedOffset: "49", affectedCount: "50" });
    expect(Number(change[0]!.evidence.changedAt)).toBeGreaterThanOrEqual(movedAt);

    // A deleted: its own topic is no longer copied; B's topics are.
    const deletedAt = Date.now();
    await deleteConnector(endpoint, connectorA);
    expect((await getConnectors(endpoint)).map((c) => c.name)).not.toContain(connectorA);
    const missing = await cycleUntil(() => ownAlerts().some((a) => a.type === "MM2_CONNECTOR_MISSING"), "MM2_CONNECTOR_MISSING for A", 120_000);
    const flow = flowOf(missing)!;
    expect(flow.connectorMissing?.connectors).toEqual([connectorA]);
    expect(flow.connectorMissing!.since).toBeGreaterThanOrEqual(deletedAt);
    expect(flow.connectors.sources).toEqual([base, connectorB, connectorA]);
    const [alert] = ownAlerts().filter((a) => a.type === "MM2_CONNECTOR_MISSING");
    expect(alert).toMatchObject({ severity: "critical", flow: flowId, evidence: { connectCluster: "sandbox", connectors: connectorA, topics: topics.a } });
    expect(alert!.summary).toContain(`MM2 source connector ${connectorA} of flow ${flowId} is gone from Connect cluster sandbox since`);
    expect(alert!.summary).toContain(`its 1 topic is not replicated (${base}, ${connectorB} still copy the rest)`);
    // Written once A is gone for good: A's topic is not copied, B's is (log ends from Kafka, not from Gapwatch).
    await produce(topics.a, 10);
    await produce(topics.b, 10);
    const healthy = await cycleUntil((s) => rowOf(s, topics.b)?.lag === 0n && rowOf(s, topics.b)?.targetLogEnd === 60n, "B's topic copied");
    expect(await targetEnd(topics.b)).toBe(60n);
    const [sourceEndA, targetEndA] = [(await fetchLogEnds(east, topics.a)).get(0)!.high, await targetEnd(topics.a)];
    expect(sourceEndA).toBe(60n);
    expect(targetEndA).toBe(50n);
    expect(rowOf(healthy, topics.a)).toMatchObject({ sourceConnector: connectorA, sourceLogEnd: 60n, targetLogEnd: 50n, lag: 10n, unknown: null });

    // Nothing else for these topics and connectors: no move by hand, no redelivery, no loss, no topic leaving.
    expect(ownAlerts().map((a) => a.type).sort()).toEqual(["FLOW_CONFIG_WARNING", "MM2_CONNECTOR_MISSING", "TOPIC_CHANGED_CONNECTOR"]);
  });

  it("joins a connector of the same alias pair on a second Connect cluster; that cluster down is a blind spot for it only", { timeout: 400_000 }, async () => {
    await putWhenReady(second!.url, connectorC, configOf(`${prefix}-c`));
    const joined = await cycleUntil(
      (s) => rowOf(s, topics.c)?.sourceConnector === connectorC && rowOf(s, topics.c)?.committedPosition === 50n && rowOf(s, topics.c)?.lag === 0n,
      "C copying on the second Connect cluster",
    );
    expect(await targetEnd(topics.c)).toBe(50n);
    expect(flowOf(joined)!.connectors.sourceClusters).toMatchObject({ [connectorC]: "second", [connectorB]: "sandbox" });
    expect(flowOf(joined)!.connectors.sources).toContain(connectorC);
    expect(joined.flows.map((f) => f.id).filter((f) => f === flowId)).toEqual([flowId]);

    // The second Connect cluster stops: C's partition is unknown, naming why; B's topic stays known and copied.
    await stopProcess(second!.process);
    second = null;
    await produce(topics.b, 10);
    const blind = await cycleUntil((s) => rowOf(s, topics.c)?.unknown !== null && rowOf(s, topics.b)?.targetLogEnd === 70n, "C unknown, B copied");
    expect(rowOf(blind, topics.c)!.unknown!.reason).toContain(`(${connectorC} on second)`);
    expect(rowOf(blind, topics.b)).toMatchObject({ unknown: null, lag: 0n, sourceConnector: connectorB });
    expect(await targetEnd(topics.b)).toBe(70n);
    const onC = ownAlerts().filter((a) => a.topic === topics.c);
    expect(onC.map((a) => a.type)).toEqual([]);
  });

  it("reports a topic moved to a connector with auto.offset.reset=latest as the exact skip", { timeout: 300_000 }, async () => {
    await cycleUntil((s) => rowOf(s, topics.late)?.sourceConnector === connectorB && rowOf(s, topics.late)?.committedPosition === 50n, "B copying late");
    // Out of B's filter (B's task restarts with its new partitions: given 15 s); 20 records written while no
    // connector copies it (checked on the target); then D (latest) takes it, and more come.
    await putConnectorConfig(endpoint, connectorB, configOf(`${prefix}-(b|both|moved)`));
    await sleep(15_000);
    await produce(topics.late, 20);
    await sleep(10_000);
    expect(await targetEnd(topics.late)).toBe(50n);
    await putConnectorConfig(endpoint, connectorD, configOf(`${prefix}-late`, { "consumer.auto.offset.reset": "latest" }));
    await cycleUntil((s) => rowOf(s, topics.late)?.sourceConnector === connectorD, "D credited with late");
    for (let i = 0; i < 60 && (await targetEnd(topics.late)) === 50n; i++) {
      await produce(topics.late, 1);
      await sleep(2000);
    }
    const skipped = await cycleUntil(() => ownAlerts().some((a) => a.type === "TOPIC_CHANGED_CONNECTOR" && a.topic === topics.late), "the skip reported");
    // Kafka's log ends: D copied only what came after it started, never 50–69.
    const sourceEnd = (await fetchLogEnds(east, topics.late)).get(0)!.high;
    expect(await targetEnd(topics.late)).toBe(50n + (sourceEnd - 70n));
    const [alert] = ownAlerts().filter((a) => a.type === "TOPIC_CHANGED_CONNECTOR" && a.topic === topics.late);
    expect(alert).toMatchObject({
      severity: "warning",
      evidence: { fromConnector: connectorB, toConnector: connectorD, outcome: "skipped", firstAffectedOffset: "50", lastAffectedOffset: "69", affectedCount: "20" },
    });
    expect(rowOf(skipped, topics.late)?.sourceConnector).toBe(connectorD);
    // A cycle that read Connect before it listed D saw the topic in no connector's filter: TOPIC_LEFT_FLOW (info) is
    // true of that moment and may be there; nothing else is (no reset skip, no forward move, no loss).
    const others = ownAlerts().filter((a) => a.topic === topics.late && a.type !== "TOPIC_LEFT_FLOW");
    expect(others.map((a) => a.type)).toEqual(["TOPIC_CHANGED_CONNECTOR"]);
  });
});
