import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { logger } from "@/lib/logger";
import { encodeCheckpointKey, encodeCheckpointValue, encodeHeartbeatKey, encodeOffsetSyncKey } from "@/lib/mm2/record-encoders";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { startWorkload, type Workload, workloadGroups } from "@/lib/sandbox/workload";
import { createSandboxRuntime, cycleUntil } from "../support/runtime";
import { readCheckpoints } from "../translation/kafka-truth";
import { readLogEnds } from "./kafka-cli-truth";

/**
 * Issue 15 item 3, for real: garbage produced into the sandbox's offset-syncs, checkpoints, heartbeats and Connect
 * offsets topics while the real collector and pipeline run. Every garbage record is one that MM2 and Connect
 * themselves skip without harm, so the files that run after this one see a working MM2:
 * - offset syncs: records MM2 reads as syncs of a topic it never copies (see offsetSyncGarbage);
 * - checkpoints: each fails Kafka's Struct read with a SchemaException (Checkpoint.deserializeRecord), which
 *   CheckpointStore logs and skips record by record; no tombstones (a null value is an NPE in
 *   Checkpoint.deserializeRecord, which fails CheckpointStore's whole load);
 * - heartbeats: nothing in MM2 reads `<source>.heartbeats`;
 * - Connect offsets: keys that are not `[connectorName, {partition}]` JSON, which OffsetUtils.processPartitionKey
 *   ignores ("Ignoring offset partition key ...") and no task ever looks up (KafkaOffsetBackingStore).
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state);
const FLOW_ID = "east->west";
const topic = `hostile-${randomUUID().slice(0, 8)}`;
const targetTopic = `east.${topic}`;
const PARTITIONS = 3;
const connectOffsetsTopic = "connect-offsets";
const fast = workloadGroups.fast;
const names = connectorNames("east", "west");

/** Kafka protocol bytes, written out so each record's flaw is visible. */
const hex = (s: string) => Buffer.from(s.replace(/ /g, ""), "hex");
const syncKey = encodeOffsetSyncKey({ topic: "gapwatch-hostile", partition: 0 });
const checkpointKey = encodeCheckpointKey({ group: "gapwatch-hostile", topic: "east.gapwatch-hostile", partition: 0 });
const checkpointValue = encodeCheckpointValue({ upstream: 5n, downstream: 5n, metadata: "" });
const heartbeatKey = encodeHeartbeatKey({ sourceClusterAlias: "east", targetClusterAlias: "west" });

interface Garbage {
  key: Buffer;
  value: Buffer;
  partition: number;
}

// Kafka's Struct reader ignores trailing bytes and takes any partition, so MM2 reads each of these as a sync of a topic
// it never copies; a garbage record that made OffsetSync.deserializeRecord throw would instead make KafkaBasedLog.poll
// drop the rest of its poll batch, real syncs included, in OffsetSyncStore (at every checkpoint task start).
// Gapwatch's stricter decoder rejects all five. Truncated syncs are the unit fuzz's (record-fuzz.ts).
const offsetSyncGarbage: Garbage[] = [
  { key: syncKey, value: Buffer.alloc(17), partition: 0 }, // a 17-byte value
  { key: Buffer.concat([syncKey, hex("ff")]), value: Buffer.alloc(16), partition: 0 }, // a trailing key byte
  { key: encodeOffsetSyncKey({ topic: "gapwatch-hostile", partition: -1 }), value: Buffer.alloc(16), partition: 0 },
  { key: syncKey, value: Buffer.alloc(24), partition: 0 }, // three offsets
  { key: Buffer.concat([syncKey, hex("00 00 07")]), value: Buffer.alloc(16), partition: 0 }, // three trailing key bytes
];
const checkpointGarbage: Garbage[] = [
  { key: checkpointKey, value: hex("00 00"), partition: 0 }, // version only
  { key: checkpointKey, value: hex("00 00 00 00 00 00 00 00 00 05"), partition: 0 }, // upstream offset truncated
  { key: hex("00 05 61"), value: checkpointValue, partition: 0 }, // group string cut short
  { key: hex("ff ff 00"), value: checkpointValue, partition: 0 }, // a negative string length
];
const heartbeatGarbage: Garbage[] = [
  { key: heartbeatKey, value: hex("00 00 00 00 01"), partition: 0 }, // timestamp truncated
  { key: hex("00 04 65 61"), value: hex("00 00 00 00 01 8c 00 00 00 00"), partition: 0 }, // alias cut short
  { key: heartbeatKey, value: hex("00 00 ff ff ff ff ff ff ff fb"), partition: 0 }, // a timestamp of -5 ms
];
const connectOffsetsGarbage: Garbage[] = [
  { key: Buffer.concat([hex("00 ff"), Buffer.from("not json")]), value: hex("01 02"), partition: 0 },
  { key: Buffer.from('"gapwatch-hostile"'), value: Buffer.from('{"offset":'), partition: 1 },
  { key: Buffer.from('["gapwatch-hostile",{"x":1},3]'), value: Buffer.from("not json"), partition: 2 },
];

let workload: Workload | null = null;
let flow: Flow;
let baseline: Record<string, number>;
let checkpointsFrom = 0n;
/** Offsets of the garbage records per `topic/partition`, as the broker acknowledged them. */
const produced = new Map<string, Set<bigint>>();
const logLines: string[] = [];

/** Produces `records` in one batch per partition and notes their offsets (a batch is appended at consecutive offsets). */
async function produceGarbage(bootstrap: string, name: string, records: readonly Garbage[]): Promise<void> {
  const producer = sandboxKafka(bootstrap, "gapwatch-hostile").producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const partitions = [...new Set(records.map((r) => r.partition))];
    for (const partition of partitions) {
      const batch = records.filter((r) => r.partition === partition);
      const [meta] = await producer.send({ topic: name, acks: -1, messages: batch.map((r) => ({ partition, key: r.key, value: r.value })) });
      const offsets = produced.get(`${name}/${partition}`) ?? new Set<bigint>();
      for (let i = 0; i < batch.length; i++) offsets.add(BigInt(meta!.baseOffset!) + BigInt(i));
      produced.set(`${name}/${partition}`, offsets);
    }
  } finally {
    await producer.disconnect();
  }
}

/** The offsets the collector's "malformed records skipped" lines name for `topic` (ranges such as `3-7,12`). */
function loggedOffsets(name: string): Map<number, Set<bigint>> {
  const byPartition = new Map<number, Set<bigint>>();
  for (const line of logLines) {
    const entry = JSON.parse(line) as { msg?: string; topic?: string; partition?: number; offsets?: string };
    if (entry.msg !== "malformed records skipped" || entry.topic !== name) continue;
    const set = byPartition.get(entry.partition!) ?? new Set<bigint>();
    for (const range of entry.offsets!.split(",")) {
      const [from, to] = range.split("-").map(BigInt) as [bigint, bigint | undefined];
      for (let o = from; o <= (to ?? from); o++) set.add(o);
    }
    byPartition.set(entry.partition!, set);
  }
  return byPartition;
}

const delta = (s: Snapshot, key: string) => (s.malformedRecords[key] ?? 0) - (baseline[key] ?? 0);
const keys = () => ({
  syncs: `${flow.offsetSyncs.cluster}/${flow.offsetSyncs.topic}`,
  checkpoints: `${flow.target}/${flow.checkpointsTopic}`,
  heartbeats: `${flow.target}/${flow.source}.heartbeats`,
  connectOffsets: `west/${connectOffsetsTopic}`,
});

beforeAll(async () => {
  const stream = (logger as unknown as Record<symbol, { write(chunk: string): boolean }>)[pino.symbols.streamSym]!;
  const write = stream.write.bind(stream);
  vi.spyOn(stream, "write").mockImplementation((chunk: string) => {
    logLines.push(...chunk.split("\n").filter((l) => l.includes('"malformed records skipped"')));
    return write(chunk);
  });
  const first = await runtime.collector.runCycle();
  flow = first.flows.find((f) => f.id === FLOW_ID)!;
  expect(flow, "the sandbox's east->west flow").toBeDefined();
  baseline = { ...first.malformedRecords };
  await ensureTopics(east, [{ topic, partitions: PARTITIONS }]);
  workload = await startWorkload({ bootstrap: east, ratePerSecond: 30, topics: [{ topic, partitions: PARTITIONS }], run: topic });
  for (let i = 0; i < 5; i++) {
    await runtime.collector.runCycle();
    await sleep(1000);
  }
  const k = keys();
  await produceGarbage(flow.offsetSyncs.cluster === "east" ? east : west, flow.offsetSyncs.topic, offsetSyncGarbage);
  await produceGarbage(west, flow.checkpointsTopic, checkpointGarbage);
  await produceGarbage(west, `${flow.source}.heartbeats`, heartbeatGarbage);
  await produceGarbage(west, connectOffsetsTopic, connectOffsetsGarbage);
  checkpointsFrom = (await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.high;
  await cycleUntil(runtime.collector, (s) => delta(s, k.syncs) > 0 && delta(s, k.checkpoints) > 0 && delta(s, k.heartbeats) > 0, "the garbage read", { timeoutMs: 30_000 });
  for (let i = 0; i < 5; i++) {
    await runtime.collector.runCycle();
    await sleep(1000);
  }
  await workload.stop();
  workload = null;
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await workload?.stop();
  await runtime.collector.stop();
  await runtime.store.close();
});

describe("hostile records in the real MM2 and Connect topics", () => {
  it("counts exactly the records produced per topic and logs each one's topic, partition and offset", async () => {
    const k = keys();
    const last = await runtime.collector.runCycle();
    expect([delta(last, k.syncs), delta(last, k.checkpoints), delta(last, k.heartbeats), delta(last, k.connectOffsets)]).toEqual([
      offsetSyncGarbage.length,
      checkpointGarbage.length,
      heartbeatGarbage.length,
      // Connect mode: MM2's positions come from Connect's REST API; Gapwatch never tails the offsets topic.
      0,
    ]);
    for (const name of [flow.offsetSyncs.topic, flow.checkpointsTopic, `${flow.source}.heartbeats`]) {
      expect(loggedOffsets(name), `offsets the log names for ${name}`).toEqual(new Map([[0, produced.get(`${name}/0`)]]));
    }
    expect(loggedOffsets(connectOffsetsTopic)).toEqual(new Map());
  });

  it("MM2's positions (Connect's committed one too) still equal the log ends Kafka's GetOffsetShell reads", async () => {
    const done = (s: Snapshot) => {
      const parts = s.flows.find((f) => f.id === FLOW_ID)?.partitions.filter((p) => p.topic === topic) ?? [];
      return parts.length === PARTITIONS && parts.every((p) => p.sourceLogEnd !== null && p.committedPosition === p.sourceLogEnd && p.targetLogEnd === p.sourceLogEnd);
    };
    const snapshot = await cycleUntil(runtime.collector, done, `${targetTopic} replicated and committed`, { timeoutMs: 45_000 });
    const [sourceEnds, targetEnds] = await Promise.all([readLogEnds(state, east, topic), readLogEnds(state, west, targetTopic)]);
    const parts = snapshot.flows.find((f) => f.id === FLOW_ID)!.partitions.filter((p) => p.topic === topic);
    const total = [...sourceEnds.values()].reduce((a, b) => a + b, 0n);
    process.stdout.write(`[hostile-records] ${topic}: ${total} records on ${PARTITIONS} partitions replicated past the garbage\n`);
    expect(total).toBeGreaterThan(200n);
    for (const p of parts) {
      const kafka = sourceEnds.get(`${topic}/${p.partition}`)!;
      expect([p.partition, p.mm2Position, p.committedPosition, p.targetLogEnd, p.lag]).toEqual([p.partition, kafka, kafka, targetEnds.get(`${targetTopic}/${p.partition}`), 0n]);
    }
  });

  it("a group's checkpoints still equal MM2's own, read with Kafka's CheckpointFormatter", async () => {
    // The workload has stopped: MM2's checkpoints of the group converge. Wait until Gapwatch holds one per partition
    // and they stayed the same over more than one emit interval (5 s), then compare with what MM2 wrote.
    const held = (s: Snapshot) => s.flows.find((f) => f.id === FLOW_ID)!.checkpoints.filter((c) => c.group === fast && c.topic === topic);
    const describe = (s: Snapshot) => held(s).map((c) => `${c.partition}:${c.upstream}->${c.downstream}`).sort().join(" ");
    let previous = "";
    let since = Date.now();
    const stable = (s: Snapshot) => {
      const now = describe(s);
      if (now !== previous) [previous, since] = [now, Date.now()];
      return held(s).length === PARTITIONS && Date.now() - since > 7_000;
    };
    const snapshot = await cycleUntil(runtime.collector, stable, `${fast}'s settled checkpoints of ${topic}`, { timeoutMs: 60_000, describe });
    const end = (await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.high;
    const kafka = await readCheckpoints(state, west, flow.checkpointsTopic, checkpointsFrom, Number(end - checkpointsFrom));
    for (const c of held(snapshot)) {
      const newest = kafka.filter((r) => r.value.group === fast && r.value.topic === targetTopic && r.value.partition === c.partition).at(-1);
      expect([c.partition, c.upstream, c.downstream]).toEqual([c.partition, newest?.value.upstream, newest?.value.downstream]);
    }
    process.stdout.write(`[hostile-records] ${fast} on ${topic}: ${describe(snapshot)} as MM2 wrote them\n`);
  });

  it("MM2 still replicates and every connector still runs after the garbage", async () => {
    const endpoint = { url: state.connect.url };
    const mine = [names.source, names.checkpoint, names.heartbeat, names.upstreamHeartbeat];
    const connectors = (await waitForConnectorsRunning(endpoint, mine, 30_000)).filter((c) => mine.includes(c.name));
    const running = (c: (typeof connectors)[number]) => c.state === "RUNNING" && c.tasks.length > 0 && c.tasks.every((t) => t.state === "RUNNING");
    expect(connectors.filter(running).map((c) => c.name).sort()).toEqual([...mine].sort());
    // 30 more records per partition, then the target's log ends must reach the source's (kafkajs ListOffsets).
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 30 * PARTITIONS }, (_, i) => ({ partition: i % PARTITIONS, value: `after-${i}` })) });
    await producer.disconnect();
    const sourceEnds = await fetchLogEnds(east, topic);
    const deadline = Date.now() + 30_000;
    const caughtUp = async () => {
      const targetEnds = await fetchLogEnds(west, targetTopic);
      return [...sourceEnds].every(([p, e]) => targetEnds.get(p)?.high === e.high);
    };
    while (!(await caughtUp())) {
      if (Date.now() > deadline) throw new Error(`MM2 did not copy the last ${30 * PARTITIONS} records of ${topic} within 30 s`);
      await sleep(1000);
    }
    const heartbeat = (await runtime.collector.runCycle()).flows.find((f) => f.id === FLOW_ID)!.heartbeat;
    expect(heartbeat.latencyMs).not.toBeNull();
    expect(heartbeat.latencyMs!).toBeLessThan(15_000);
  });
});
