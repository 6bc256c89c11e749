import { randomUUID } from "node:crypto";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getGroup } from "@/app/api/flows/[flow]/groups/[group]/route";
import { type Flow, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { defaultTopicsExclude } from "@/lib/mm2";
import { checkpointConnectorConfig, type FlowClusters, sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { describeGroupOffsets, getOffsetShell } from "../kafka/helpers";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";
import { readCheckpoints } from "../translation/kafka-truth";

/**
 * IdentityReplicationPolicy (Kafka's IdentityReplicationIntegrationTest runs MM2 so) with a local producer writing
 * the same-named target topic: MM2 copies `topic` from west into `topic` on east, and a producer on east writes
 * into it too. The target's extra records are the local writer's, not MM2 re-copies or a truncation; MM2's
 * position, lag and a group's translation follow MM2's offset syncs, whose downstream offsets step over the local
 * records. A topic on west that MM2 does not copy, with a same-named topic on east, is not taken for a remote topic.
 * The flow runs west -> east (its own alias pair) so the sandbox's east -> west flow keeps its DefaultReplicationPolicy;
 * the topics are `bench-…`, which the sandbox's own connector leaves out. Ground truth: Kafka's GetOffsetShell,
 * ConsoleConsumer and CheckpointFormatter.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
const id = randomUUID().slice(0, 8);
const topic = `bench-identity-${id}`;
const localOnly = `bench-identity-local-${id}`;
const group = `identity-group-${id}`;
const FLOW_ID = "west->east";
const source = `mm2-west-east-identity-${id}`;
const checkpoint = `mm2-west-east-identity-checkpoint-${id}`;
const clusters: FlowClusters = { source: { alias: "west", bootstrap: west }, target: { alias: "east", bootstrap: east } };
// The sandbox's Connect worker runs on west, and a connector's records go to the worker's cluster unless its producer
// is pointed elsewhere (as MM2 flows towards another cluster than the worker's do).
const identity = {
  "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
  topics: topic,
  "producer.override.bootstrap.servers": east,
};
const COPIED = 150;
const LOCAL = 50;
const GROUP_AT = 120n;

const flowOf = (s: Snapshot): Flow | undefined => s.flows.find((f) => f.id === FLOW_ID);
const rowOf = (s: Snapshot) => flowOf(s)?.partitions.find((p) => p.topic === topic && p.partition === 0);

function describeRow(s: Snapshot): string {
  const row = rowOf(s);
  if (!row) return `no row (flows: ${s.flows.map((f) => f.id).join(", ")})`;
  return `mm2 ${row.mm2Position} (${row.positionSource}) committed ${row.committedPosition} lag ${row.lag} target ${row.targetLogEnd} density ${row.targetDensityIssue}`;
}
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRow });

async function produce(bootstrap: string, name: string, from: number, count: number, tag: string): Promise<void> {
  const producer = sandboxKafka(bootstrap).producer();
  await producer.connect();
  await producer.send({ topic: name, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `${tag}-${from + i}` })) });
  await producer.disconnect();
}

async function waitForTargetEnd(end: bigint): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await fetchLogEnds(east, topic).catch(() => new Map<number, { high: bigint }>())).get(0)?.high !== end) {
    if (Date.now() > deadline) throw new Error(`${topic} on east did not reach ${end} records within 120 s`);
    await sleep(1000);
  }
}

beforeAll(async () => {
  await ensureTopics(west, [{ topic, partitions: 1 }, { topic: localOnly, partitions: 1 }]);
  await ensureTopics(east, [{ topic: localOnly, partitions: 1 }]);
  await produce(west, topic, 0, 100, "copied");
  await produce(east, localOnly, 0, 10, "east-own");
  await produce(west, localOnly, 0, 10, "west-own");
  await putConnectorConfig(endpoint, source, sourceConnectorConfig(clusters, { ...identity, "topics.exclude": defaultTopicsExclude }));
  await putConnectorConfig(endpoint, checkpoint, { ...checkpointConnectorConfig(clusters), ...identity, groups: group });
  await waitForConnectorsRunning(endpoint, [source], 120_000);
  await waitForTargetEnd(100n);
  // Gapwatch watches throughout, as it would in production: each offset-sync step is judged in the cycle that reads it.
  await cycleUntil((s) => rowOf(s)?.mm2Position === 100n && rowOf(s)?.latestSync?.upstream === 99n, "the first 100 records copied");
  // The local writer on east, then more of west's records for MM2 to copy after them, then the local writer again:
  // MM2's downstream offsets step over 30 local records, and the target's last 20 records are not MM2's.
  await produce(east, topic, 0, 30, "local");
  await produce(west, topic, 100, COPIED - 100, "copied");
  await waitForTargetEnd(BigInt(COPIED + 30));
  await cycleUntil((s) => rowOf(s)?.mm2Position === BigInt(COPIED) && rowOf(s)?.latestSync?.upstream === BigInt(COPIED - 1), "the next 50 copied");
  await produce(east, topic, 30, LOCAL - 30, "local");
  // A group on west that read up to GROUP_AT: MM2's checkpoint connector translates it onto east.
  const admin = sandboxKafka(west).admin();
  await admin.connect();
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: GROUP_AT.toString() }] });
  await admin.disconnect();
}, 300_000);

afterAll(async () => {
  await deleteConnector(endpoint, source).catch(() => undefined);
  await deleteConnector(endpoint, checkpoint).catch(() => undefined);
  await deleteLeftovers([
    { bootstrap: west, topics: [topic, localOnly, "mm2-offset-syncs.east.internal"], groups: [group] },
    { bootstrap: east, topics: [topic, localOnly, "west.heartbeats", "west.checkpoints.internal"], groups: [group] },
  ]);
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("IdentityReplicationPolicy with a local producer on the target topic", () => {
  it("follows MM2's offset syncs, names the local writer once and raises nothing else", { timeout: 300_000 }, async () => {
    const [sourceEnds, targetEnds] = [await getOffsetShell(state, west, topic, -1), await getOffsetShell(state, east, topic, -1)];
    expect([sourceEnds.get(0), targetEnds.get(0)]).toEqual([BigInt(COPIED), BigInt(COPIED + LOCAL)]);
    const settled = await cycleUntil((s) => rowOf(s)?.mm2Position === BigInt(COPIED) && rowOf(s)?.targetLogEnd === BigInt(COPIED + LOCAL), "MM2's position exact");
    const flow = flowOf(settled)!;
    expect(flow.replicationPolicy).toEqual({ kind: "identity", separator: "." });
    // IdentityReplicationPolicy still prefixes heartbeats: MM2 copied west's into west.heartbeats, where Gapwatch reads them.
    expect((await getOffsetShell(state, east, "west.heartbeats", -1)).get(0)).toBeGreaterThan(0n);
    expect([flow.checkpointsTopic, flow.heartbeat.latestTimestamp !== null]).toEqual(["west.checkpoints.internal", true]);
    const row = rowOf(settled)!;
    const syncs = readSyncHistories(runtime.collector.history().offsetSyncs).list(flowPartitionKey(FLOW_ID, topic, 0)).map((x) => `${x.upstream}:${x.downstream}`);
    process.stdout.write(`[identity] ${describeRow(settled)}; syncs ${syncs.join(" ")}\n`);
    expect([row.targetTopic, row.mm2Position, row.positionSource, row.lag, row.targetLogEnd]).toEqual([topic, BigInt(COPIED), "committed", 0n, BigInt(COPIED + LOCAL)]);
    // MM2's first copy after the 30 local records is source offset 100 at east offset 130: a sync at once
    // (downstream 130 is more than offset.lag.max past the last sync's).
    expect(syncs).toContain("100:130");
    expect(row.targetDensityIssue).toMatch(/^the target holds records between MM2's offset syncs \d+→\d+ and 100→130 that are not MM2's copies \(offset \d+ is not MM2's copy of source offset 100\): another producer writes to the target topic$/);

    // The target's records, by content: every source record once, in order, and the local writer's 50.
    const records = await readPartition(state, east, topic, 0, 0n, COPIED + LOCAL);
    const copied = records.filter((r) => r.value.startsWith("copied-")).map((r) => r.value);
    expect(copied).toEqual(Array.from({ length: COPIED }, (_, i) => `copied-${i}`));
    expect(records.filter((r) => r.value.startsWith("local-"))).toHaveLength(LOCAL);

    // The local-only topic is not in the flow and is not taken for a topic MM2 once copied.
    expect(flow.partitions.filter((p) => p.topic === localOnly)).toEqual([]);
    // Nor is __consumer_offsets, on both clusters under one name: excluded topics are those MM2 once copied.
    expect(flow.excludedTopics).toEqual([]);

    // MM2's checkpoint of the group, read with Kafka's CheckpointFormatter, is what Gapwatch translates to.
    const checkpointsTopic = "west.checkpoints.internal";
    const deadline = Date.now() + 120_000;
    let mm2Checkpoint: bigint | undefined;
    while (mm2Checkpoint === undefined) {
      if (Date.now() > deadline) throw new Error(`MM2 wrote no checkpoint of ${group} within 120 s`);
      const end = (await fetchLogEnds(east, checkpointsTopic).catch(() => new Map<number, { high: bigint }>())).get(0)?.high ?? 0n;
      const mine = (await readCheckpoints(state, east, checkpointsTopic, 0n, Number(end))).filter((c) => c.value.group === group && c.value.topic === topic);
      mm2Checkpoint = mine.at(-1)?.value.downstream;
      if (mm2Checkpoint === undefined) await sleep(2000);
    }
    // The record MM2's checkpoint points at on east: a failover consumer starting there skips no copied record.
    const from = await readPartition(state, east, topic, 0, mm2Checkpoint, 1);
    const firstCopied = (await readPartition(state, east, topic, 0, mm2Checkpoint, COPIED + LOCAL - Number(mm2Checkpoint))).find((r) => r.value.startsWith("copied-"));
    expect(Number(firstCopied!.value.slice("copied-".length))).toBeLessThanOrEqual(Number(GROUP_AT));
    process.stdout.write(`[identity] MM2 checkpoint ${group}: upstream ${GROUP_AT} -> downstream ${mm2Checkpoint} (${from[0]?.value})\n`);
    await cycleUntil(() => true, "one more cycle", 10_000);
    const detail = await callRoute(getGroup, `/api/flows/${encodeURIComponent(FLOW_ID)}/groups/${group}`, { flow: encodeURIComponent(FLOW_ID), group });
    expect(detail.status).toBe(200);
    const part = (detail.body.partitions as { topic: string; partition: number; committed: string; translation: { kind: string; downstream?: string }; checkpoint: { upstream: string; downstream: string } | null }[]).find((p) => p.topic === topic);
    expect(part).toMatchObject({ committed: GROUP_AT.toString(), checkpoint: { upstream: GROUP_AT.toString(), downstream: mm2Checkpoint.toString() } });
    expect(part!.translation.downstream).toBe(mm2Checkpoint.toString());
    // MM2 (sync.group.offsets.enabled) wrote that offset into the idle group on east, as kafka-consumer-groups shows.
    const synced = async () => (await describeGroupOffsets(state, east, group)).find((r) => r.topic === topic)?.offset;
    const syncDeadline = Date.now() + 60_000;
    while ((await synced()) !== mm2Checkpoint) {
      if (Date.now() > syncDeadline) throw new Error(`MM2 did not sync ${group}'s offset on east to ${mm2Checkpoint} within 60 s`);
      await sleep(3000);
    }

    // A minute of cycles: the local records are never read as re-copies, a reset or a truncation.
    for (let i = 0; i < 6; i++) {
      await sleep(5000);
      await runtime.collector.runCycle();
    }
    const alerts = runtime.alerts.list({}).filter((a) => a.flow === FLOW_ID || a.topic === topic || a.topic === localOnly);
    expect(alerts.map((a) => `${a.type} ${a.severity} ${a.topic ?? ""}: ${a.summary}`)).toEqual([]);
  });
});
