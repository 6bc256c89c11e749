import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { defaultTopicsExclude } from "@/lib/mm2";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { connectorNames, sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds } from "@/lib/sandbox/topics";
import { readReadinessOf } from "@/lib/views/readiness-data";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";
import { describeRows, listRows, produceCounts, readOffsets } from "./support";

/**
 * A source partition count increased under traffic (Kafka's testCreatePartitionsUseReplicationPolicy, KAFKA-9981):
 * MM2 follows at its next topic refresh (MirrorSourceConnector.refreshTopicPartitions creates the remote partitions,
 * then its task copies them from offset 0). Until then the new partitions exist at the source only: shown as
 * missing on the target, a warning only once that lasts `targetTopicMissingMs` (here 60 s, 3 x this connector's
 * 20 s refresh). The contrast: the same change while the connector's topic refresh is off, which MM2 never follows
 * until it restarts. Ground truth: Kafka's GetOffsetShell on both clusters.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const FLOW = "east->west";
const missingAfterMs = 60_000;
const runtime = createSandboxRuntime(state, 5, { targetTopicMissingMs: missingAfterMs });
const id = randomUUID().slice(0, 8);
const prefix = `bench-look-${id}`;
const topic = `${prefix}-grown`;
const remoteTopic = `east.${topic}`;
const connector = `${connectorNames("east", "west").source}-look-${id}`;
const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
const connectorConfig = (extra: Record<string, string>) =>
  sourceConnectorConfig({ source: cluster("east"), target: cluster("west") }, {
    topics: `${prefix}-.*`,
    "topics.exclude": defaultTopicsExclude,
    "refresh.topics.interval.seconds": "20",
    ...extra,
  });

const rowsOf = (s: Snapshot) => listRows(s, FLOW, topic);
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 150_000) =>
  cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: (s) => describeRows(s, FLOW, topic) });
const missingShown = (s: Snapshot) =>
  (s.flows.find((f) => f.id === FLOW)?.coverage?.partitionsMissingOnTarget ?? []).filter((m) => m.topic === topic).map((m) => `${m.targetTopic} ${m.partitions.join(",")}`);
/** The readiness check on topics, for this file's topic only: `<status>: <item>` of the latest read model. */
function readinessOfTopic(): string[] {
  const model = runtime.pipeline.latest();
  const flow = model?.snapshot.flows.find((f) => f.id === FLOW);
  if (!model || flow === undefined) return ["no read model"];
  const check = readReadinessOf(model, flow).checks.find((c) => c.id === "topics");
  return (check?.items ?? []).filter((i) => i.text.includes(topic)).map((i) => `${check?.status}: ${i.text}`);
}
/** Every alert, firing or resolved, about this file's topic: other files' leftovers are not judged. */
const ownAlerts = () => runtime.alerts.list({}).filter((a) => (a.topic ?? "").includes(prefix));
const describeAlerts = () => ownAlerts().map((a) => `${a.type} ${a.state} ${a.topic ?? ""}: ${a.summary}`);

/** Writes 5 records a second to every partition the topic has now, until `stop` is called. */
function startTraffic(): { stop: () => Promise<void> } {
  let running = true;
  const loop = (async () => {
    for (let batch = 0; running; batch++) {
      // A new producer per batch sees the partition count Kafka has now.
      const partitions = (await fetchLogEnds(east, topic)).size;
      await produceCounts(east, topic, Array.from({ length: partitions }, () => 5), `grown-${batch}`);
      await sleep(1000);
    }
  })();
  return { stop: async () => ((running = false), await loop) };
}

/** Waits until every partition is copied to the source's log end (GetOffsetShell) and returns both sides' ends. */
async function expectCopiedExactly(partitions: number): Promise<void> {
  const ends = await readOffsets(state, east, topic, "-1");
  const settled = await cycleUntil((s) => rowsOf(s).length === partitions && rowsOf(s).every((p) => p.lag === 0n && p.targetLogEnd === ends.get(`${topic}/${p.partition}`)), `${topic} caught up`);
  const targetEnds = await readOffsets(state, west, remoteTopic, "-1");
  const kafka = [...Array(partitions).keys()].map((p) => [p, ends.get(`${topic}/${p}`), targetEnds.get(`${remoteTopic}/${p}`), 0n]);
  expect(kafka.every(([, end]) => typeof end === "bigint" && end > 0n)).toBe(true);
  expect(rowsOf(settled).map((p) => [p.partition, p.sourceLogEnd, p.mm2Position, p.lag])).toEqual(kafka.map(([p, end]) => [p, end, end, 0n]));
  expect(rowsOf(settled).map((p) => [p.partition, p.targetLogEnd])).toEqual(kafka.map(([p, , targetEnd]) => [p, targetEnd]));
  expect(missingShown(settled)).toEqual([]);
  expect(readinessOfTopic()).toEqual([]);
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 2 }]);
  await produceCounts(east, topic, [20, 20], "grown");
  await putConnectorConfig(endpoint, connector, connectorConfig({}));
  await waitForConnectorsRunning(endpoint, [connector], 120_000);
}, 180_000);

afterAll(async () => {
  await deleteConnector(endpoint, connector).catch(() => undefined);
  await deleteLeftovers([{ bootstrap: east, topics: [topic] }, { bootstrap: west, topics: [remoteTopic] }]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
}, 120_000);

describe("a source partition count increased", () => {
  it("under traffic, MM2 following at its topic refresh: nothing raised, the new partitions copied exactly", { timeout: 300_000 }, async () => {
    await cycleUntil((s) => rowsOf(s).length === 2 && rowsOf(s).every((p) => p.lag === 0n && p.targetLogEnd === 20n), `${topic} copied`);
    const traffic = startTraffic();
    await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", east, "--alter", "--topic", topic, "--partitions", "4"]);
    const waiting: string[][] = [];
    await cycleUntil((s) => {
      const rows = rowsOf(s);
      if (rows.length === 4 && rows.some((p) => p.targetLogEnd === null)) waiting.push([...missingShown(s), ...readinessOfTopic()]);
      return rows.length === 4 && rows.every((p) => p.targetLogEnd !== null && p.targetLogEnd > 0n);
    }, `${topic} partitions 2 and 3 copied`, 200_000);
    process.stderr.write(`[lookalikes] ${waiting.length} cycles saw partitions 2-3 of ${topic} before MM2 created them\n`);
    // Each cycle between the alter and MM2's refresh named exactly the partitions the target lacks, and failing over
    // then would leave them behind: the readiness check on topics says so.
    const expectedWhileWaiting = [`${remoteTopic} 2,3`, `not-ready: ${remoteTopic} has 2 partitions, ${topic} has 4`];
    expect(waiting.filter((shown) => shown.join() !== expectedWhileWaiting.join())).toEqual([]);
    await traffic.stop();
    await expectCopiedExactly(4);
    // No DATA_LOSS, TOPIC_RESET, MM2_POSITION_MOVED, lag or stall: nothing at all for this topic.
    expect(describeAlerts()).toEqual([]);
  });

  it("with MM2's topic refresh off: a warning naming the partitions once missing past the threshold, gone once MM2 follows", { timeout: 300_000 }, async () => {
    // The connector restarts with the new config and loads the topic's 4 partitions; it never looks again.
    await putConnectorConfig(endpoint, connector, connectorConfig({ "refresh.topics.enabled": "false" }));
    await sleep(5000);
    await waitForConnectorsRunning(endpoint, [connector], 120_000);
    await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", east, "--alter", "--topic", topic, "--partitions", "6"]);
    while ((await fetchLogEnds(east, topic)).size < 6) await sleep(500);
    await produceCounts(east, topic, [0, 0, 0, 0, 7, 7], "unfollowed");
    const began = Date.now();
    const warned = await cycleUntil(
      () => ownAlerts().some((a) => a.type === "TOPIC_MISSING_ON_TARGET" && a.state === "firing"),
      "TOPIC_MISSING_ON_TARGET for partitions 4 and 5",
      missingAfterMs + 120_000,
    );
    expect(Date.now() - began).toBeGreaterThanOrEqual(missingAfterMs - 10_000);
    // Kafka's view: the remote topic still has 4 partitions, the source 6.
    expect([...(await readOffsets(state, west, remoteTopic, "-1")).keys()].sort()).toEqual([0, 1, 2, 3].map((p) => `${remoteTopic}/${p}`));
    expect(missingShown(warned)).toEqual([`${remoteTopic} 4,5`]);
    const [alert] = ownAlerts();
    expect([ownAlerts().length, alert?.type, alert?.severity, alert?.evidence.missingPartitions, alert?.evidence.targetTopic]).toEqual([
      1, "TOPIC_MISSING_ON_TARGET", "warning", "4,5", remoteTopic,
    ]);
    expect(alert?.summary).toMatch(new RegExp(`^partitions 4, 5 of ${topic} have had no partition in ${remoteTopic} on west for `));
    // MM2 follows once its refresh is on again (the restart creates the partitions and copies them from offset 0).
    await putConnectorConfig(endpoint, connector, connectorConfig({}));
    await expectCopiedExactly(6);
    expect(rowsOf(await runtime.collector.runCycle()).slice(4).map((p) => [p.partition, p.targetLogEnd])).toEqual([[4, 7n], [5, 7n]]);
    // The one warning, and nothing else (no loss, reset or moved position for the partitions copied late).
    expect(ownAlerts().map((a) => a.type)).toEqual(["TOPIC_MISSING_ON_TARGET"]);
  });
});
