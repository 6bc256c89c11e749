import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getReadiness } from "@/app/api/flows/[flow]/readiness/route";
import { Collector } from "@/lib/collector";
import { requestFlowRetirement } from "@/lib/collector/retained-flows";
import type { Snapshot } from "@/lib/collector/types";
import { loadConfigFile } from "@/lib/config/load";
import { deleteConnector, getConnectors, putConnectorConfig } from "@/lib/connect";
import { connectorNames } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers, waitUntilReplicating } from "../support/runtime";

/**
 * MM2's source connector deleted for real (Connect REST DELETE) while producers keep writing: the flow east->west
 * stays in the snapshot with MM2_CONNECTOR_MISSING naming the connector, the Connect cluster and since when, the
 * failover verdict is not-ready, a restart of the collector keeps it (from the store), and an explicit retirement
 * removes it. The connector is re-created with its own config afterwards (Connect kept its offsets).
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const names = connectorNames("east", "west");
const notRunningAfterMs = 10_000;
const runtime = createSandboxRuntime(state, 5, { notRunningAfterMs });
const topic = `missing-${randomUUID().slice(0, 8)}`;
const flowId = "east->west";
let produced = 0;
let savedConfig: Record<string, string> | null = null;

async function produce(count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `r${produced + i}` })) });
  await producer.disconnect();
  produced += count;
}

const flowOf = (s: Snapshot) => s.flows.find((f) => f.id === flowId);
const rowOf = (s: Snapshot) => flowOf(s)?.partitions.find((p) => p.topic === topic && p.partition === 0);
const missingAlerts = () => runtime.alerts.list({ type: "MM2_CONNECTOR_MISSING", state: "firing" });

/** Runs cycles while producers write 10 records before each, until `check` holds. */
async function cycleWhileWriting(check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await produce(10);
    const snapshot = await runtime.collector.runCycle();
    if (check(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: flows ${snapshot.flows.map((f) => f.id).join(", ")}`);
    await sleep(1000);
  }
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  await produce(50);
  await cycleUntilSeen(runtime.collector, (s) => rowOf(s)?.targetLogEnd === 50n, `${topic} replicated`, { timeoutMs: 90_000 });
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  if (savedConfig !== null && !(await getConnectors(endpoint)).some((c) => c.name === names.source)) {
    await putConnectorConfig(endpoint, names.source, savedConfig);
  }
  await waitUntilReplicating(state);
  await deleteLeftovers([{ bootstrap: east, topics: [topic] }]);
});

describe("MM2's source connector deleted while producers write", () => {
  it("keeps the flow with a critical MM2_CONNECTOR_MISSING, not-ready, across a restart, until retired", { timeout: 300_000 }, async () => {
    savedConfig = (await getConnectors(endpoint)).find((c) => c.name === names.source)!.config;
    const deletedAt = Date.now();
    await deleteConnector(endpoint, names.source);
    // Connect's own view: the connector is gone while Connect answers.
    expect((await getConnectors(endpoint)).map((c) => c.name)).not.toContain(names.source);

    const snapshot = await cycleWhileWriting(() => missingAlerts().length === 1, "MM2_CONNECTOR_MISSING firing");
    const flow = flowOf(snapshot)!;
    expect(flow.connectorMissing?.connectors).toEqual([names.source]);
    const since = flow.connectorMissing!.since;
    expect(since).toBeGreaterThanOrEqual(deletedAt);
    const [alert] = missingAlerts();
    expect(alert).toMatchObject({ severity: "critical", flow: flowId, evidence: { connectCluster: "sandbox", connectors: names.source, missingSince: since } });
    expect(alert!.summary).toContain(`MM2 source connector ${names.source} of flow ${flowId} is gone from Connect cluster sandbox since`);
    // MM2 copies nothing (its task may have copied a last batch while the DELETE took effect): the source grew past
    // what the target holds, and Gapwatch's lag says exactly that much (log ends from Kafka, not from Gapwatch).
    await produce(10);
    const sourceEnd = (await fetchLogEnds(east, topic)).get(0)!.high;
    const targetEnd = (await fetchLogEnds(west, `east.${topic}`)).get(0)!.high;
    const row = rowOf(await runtime.collector.runCycle())!;
    expect(targetEnd < sourceEnd).toBe(true);
    expect(row.sourceLogEnd).toBe(sourceEnd);
    expect(row.targetLogEnd).toBe(targetEnd);
    expect(row.mm2Position).toBe(targetEnd);
    expect(row.lag).toBe(sourceEnd - targetEnd);
    // Nothing else critical for one event: no stall (the stall clock stops while the connector is gone). Earlier files
    // on this shard's sandbox purged topics of their own: those DATA_LOSS alerts are theirs, not this event's.
    const critical = runtime.alerts.list({ state: "firing" }).filter((a) => a.severity === "critical" && !(a.type === "DATA_LOSS" && a.topic !== topic));
    expect(critical.map((a) => a.type)).toEqual(["MM2_CONNECTOR_MISSING"]);
    const readiness = await callRoute(getReadiness, `/api/flows/${encodeURIComponent(flowId)}/readiness`, { flow: encodeURIComponent(flowId) });
    expect(readiness.status).toBe(200);
    expect(readiness.body.verdict).toBe("not-ready");

    // A restart of Gapwatch: a new collector over the same store keeps the flow and when it went missing.
    const restarted = new Collector(loadConfigFile(process.env.GAPWATCH_CONFIG!), runtime.store);
    try {
      const after = await restarted.runCycle();
      expect(flowOf(after)?.connectorMissing).toEqual({ connectors: [names.source], since });
    } finally {
      await restarted.stop();
    }

    // An explicit retirement: the flow leaves the snapshot at the next cycle.
    await requestFlowRetirement(runtime.store, flowId, Date.now());
    const retired = await runtime.collector.runCycle();
    expect(flowOf(retired)).toBeUndefined();
  });
});
