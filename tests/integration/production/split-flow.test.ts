import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { defaultTopicsExclude } from "@/lib/mm2";
import { connectorNames, sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * A flow split over two MirrorSourceConnectors by topic regex (operators split big flows so): each connector copies
 * its own topics, and both copy `heartbeats` — MM2 replicates heartbeats topics whatever the filter — into the same
 * `east.heartbeats`, and both write that partition's offset syncs into the one offset-syncs topic. Read as one writer,
 * the interleaved syncs look like a truncated target (a downstream offset lower than the sync before), re-copies and
 * skips. Ground truth: the target heartbeats log end only grows (kafkajs), and the split topic is copied once.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
// bench-.* is outside the sandbox connector's filter: only the split connector copies this topic.
const topic = `bench-split-${randomUUID().slice(0, 8)}`;
const split = `${connectorNames("east", "west").source}-split`;

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 50 }, (_, i) => ({ partition: 0, value: `split-${i}` })) });
  await producer.disconnect();
  const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
  await putConnectorConfig(endpoint, split, sourceConnectorConfig({ source: cluster("east"), target: cluster("west") }, {
    topics: "bench-split-.*",
    "topics.exclude": defaultTopicsExclude,
  }));
}, 60_000);

afterAll(async () => {
  await deleteConnector(endpoint, split).catch(() => undefined);
  // Its topics go too, so the flow of the next test file on this sandbox is the sandbox's own again.
  for (const [bootstrap, name] of [[east, topic], [west, `east.${topic}`]] as const) {
    const admin = sandboxKafka(bootstrap).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [name], timeout: 30_000 }).catch(() => undefined);
    await admin.disconnect();
  }
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("a flow split over two MirrorSourceConnectors", () => {
  it("raises no alert on the heartbeats both connectors copy or on the split topic, copied once", { timeout: 300_000 }, async () => {
    const row = (s: Snapshot) => s.flows[0]?.partitions.find((p) => p.topic === topic && p.partition === 0);
    const seen = await cycleUntil((s) => row(s)?.targetLogEnd === 50n && row(s)?.lag === 0n, `${topic} copied by ${split}`);
    expect(seen.flows[0]!.connectors.sources).toEqual([connectorNames("east", "west").source, split]);
    const heartbeatsEnd = (await fetchLogEnds(west, "east.heartbeats")).get(0)!.high;
    // Both connectors copy heartbeats for a minute (MM2 emits one a second): 12 cycles, interleaved syncs.
    for (let i = 0; i < 12; i++) {
      await sleep(5000);
      await runtime.collector.runCycle();
    }
    expect((await fetchLogEnds(west, "east.heartbeats")).get(0)!.high).toBeGreaterThan(heartbeatsEnd);
    expect((await fetchLogEnds(west, `east.${topic}`)).get(0)!.high).toBe(50n);
    // Other files' leftovers on this sandbox (purged topics) may hold their own alerts: only these topics are judged.
    const alerts = runtime.alerts.list({}).filter((a) => a.topic === topic || a.topic === `east.${topic}` || (a.topic ?? "").endsWith("heartbeats"));
    expect(alerts.map((a) => `${a.type} ${a.topic ?? ""}: ${a.summary}`)).toEqual([]);
  });
});
