import { randomUUID } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigResourceTypes } from "kafkajs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { logger } from "@/lib/logger";
import { encodeCheckpointKey, encodeCheckpointValue, encodeHeartbeatKey, encodeOffsetSyncKey } from "@/lib/mm2/record-encoders";
import { getMirrorSourceOffsets, restartConnector } from "@/lib/connect";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { startWorkload, type Workload, workloadGroups } from "@/lib/sandbox/workload";
import { createSandboxRuntime, cycleUntil, deleteLeftovers } from "../support/runtime";
import { type CheckpointRecord, readCheckpoints, readWorkloadTopic, type Timed } from "../translation/kafka-truth";
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
 * MM2 keeps checkpointing after them, new groups too: each checkpoint task start (a new group reconfigures the task)
 * re-reads the checkpoints topic and logs "Ignored invalid checkpoint record at offset N" per garbage record
 * (CheckpointStore.java:151-152 in 4.3.1), and the load still succeeds. Kafka's ConsoleConsumer with CheckpointFormatter
 * does not: it stops at the first garbage record (ConsoleConsumer.process rethrows a formatter's exception without
 * --skip-message-on-error), so a file reading the topic from its beginning after this one saw no checkpoint at all.
 * The last test therefore removes the garbage from the checkpoints topic again (the other topics' garbage is read by
 * Gapwatch alone, or by Kafka's tools without harm) and has MM2 write its checkpoints anew.
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
/** A group that first commits after the garbage: MM2 restarts its checkpoint task for it, which re-reads the garbage. */
const late = `gapwatch-hostile-late-${randomUUID().slice(0, 8)}`;
const LATE_OFFSET = 40n;
const names = connectorNames("east", "west");
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const connectLog = path.join(sandboxDir, "connect", "connect.log");

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
/** The newest heartbeat Gapwatch held before the garbage (its -5 ms heartbeat must not replace a real one). */
let heartbeatBefore: number | null = null;
/** The fast group's settled checkpoints of the topic as MM2 wrote them, per partition: [upstream, downstream]. */
const fastSettled = new Map<number, [bigint, bigint]>();
/** Records per partition of the topic once the workload stopped (its records; the last test adds more). */
let workloadEnds = new Map<number, bigint>();
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
    heartbeatBefore = (await runtime.collector.runCycle()).flows.find((f) => f.id === FLOW_ID)!.heartbeat.latestTimestamp;
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
  workloadEnds = new Map([...(await fetchLogEnds(east, topic))].map(([p, e]) => [p, e.high]));
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await workload?.stop();
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await deleteLeftovers([
    { bootstrap: east, topics: [topic], groups: [late] },
    { bootstrap: west, topics: [targetTopic], groups: [late] },
  ]);
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
    // Not the target's log end: when an earlier file left MM2 exactly-once, the target holds transaction markers too.
    const done = (s: Snapshot) => {
      const parts = s.flows.find((f) => f.id === FLOW_ID)?.partitions.filter((p) => p.topic === topic) ?? [];
      return parts.length === PARTITIONS && parts.every((p) => p.sourceLogEnd !== null && p.committedPosition === p.sourceLogEnd && p.mm2Position === p.sourceLogEnd);
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
    // The target holds every source record exactly once (each workload value names its partition and seq): no
    // re-copy, nothing missing. And no critical alert on the topic (a TOPIC_RESET here was a misreading, see the
    // position-beyond-log-end signal in topic-reset.ts).
    const copies = await readWorkloadTopic(state, west, targetTopic, Number(total));
    expect(copies.length).toBe(Number(total));
    expect(new Set(copies.map((r) => `${r.partition}/${r.seq}`)).size).toBe(Number(total));
    expect(runtime.alerts.list({}).filter((a) => a.topic === topic && a.severity === "critical").map((a) => a.summary)).toEqual([]);
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
      fastSettled.set(c.partition, [c.upstream, c.downstream]);
    }
    process.stdout.write(`[hostile-records] ${fast} on ${topic}: ${describe(snapshot)} as MM2 wrote them\n`);
  });

  it("MM2 checkpoints a group that first commits after the garbage: its restarted task skips each garbage record", async () => {
    const logFrom = statSync(connectLog).size;
    const admin = sandboxKafka(east, "gapwatch-hostile").admin();
    await admin.connect();
    await admin.setOffsets({ groupId: late, topic, partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, offset: LATE_OFFSET.toString() })) });
    await admin.disconnect();
    // MM2 finds the group within refresh.groups.interval.seconds (5 s), restarts its checkpoint task for it, and the
    // new task's CheckpointStore reads the checkpoints topic, garbage included, before it emits anything.
    const held = (s: Snapshot) => s.flows.find((f) => f.id === FLOW_ID)!.checkpoints.filter((c) => c.group === late && c.topic === topic);
    const snapshot = await cycleUntil(runtime.collector, (s) => held(s).length === PARTITIONS, `checkpoints of ${late}`, { timeoutMs: 60_000 });
    const end = (await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.high;
    const kafka = await readCheckpoints(state, west, flow.checkpointsTopic, checkpointsFrom, Number(end - checkpointsFrom));
    const mine = (records: Timed<CheckpointRecord>[]) => records.filter((r) => r.value.group === late && r.value.topic === targetTopic);
    expect([...new Set(mine(kafka).map((r) => `${r.value.partition}:${r.value.upstream}`))].sort()).toEqual(Array.from({ length: PARTITIONS }, (_, p) => `${p}:${LATE_OFFSET}`));
    for (const c of held(snapshot)) {
      const newest = mine(kafka).filter((r) => r.value.partition === c.partition).at(-1);
      expect([c.partition, c.upstream, c.downstream]).toEqual([c.partition, newest?.value.upstream, newest?.value.downstream]);
    }
    // What the restarted task logged while loading: one warning per garbage checkpoint, and no failed load.
    const log = readFileSync(connectLog, "utf8").slice(logFrom);
    const skipped = new Set([...log.matchAll(/Ignored invalid checkpoint record at offset (\d+)/g)].map((m) => BigInt(m[1]!)));
    expect([...produced.get(`${flow.checkpointsTopic}/0`)!].filter((o) => !skipped.has(o))).toEqual([]);
    expect(log).not.toContain("Exception encountered loading checkpoints topic");
  });

  it("MM2 still replicates and every connector still runs after the garbage", async () => {
    const mine = [names.source, names.checkpoint, names.heartbeat, names.upstreamHeartbeat];
    const connectors = (await waitForConnectorsRunning(endpoint, mine, 30_000)).filter((c) => mine.includes(c.name));
    const running = (c: (typeof connectors)[number]) => c.state === "RUNNING" && c.tasks.length > 0 && c.tasks.every((t) => t.state === "RUNNING");
    expect(connectors.filter(running).map((c) => c.name).sort()).toEqual([...mine].sort());
    // 30 more records per partition, then the positions Connect stores for MM2 must reach the source's log ends
    // (kafkajs ListOffsets): MM2 stores a position only once the target acknowledged the record.
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 30 * PARTITIONS }, (_, i) => ({ partition: i % PARTITIONS, value: `after-${i}` })) });
    await producer.disconnect();
    const sourceEnds = await fetchLogEnds(east, topic);
    expect([...sourceEnds].map(([p, e]) => [p, e.high])).toEqual([...workloadEnds].map(([p, end]) => [p, end + 30n]));
    const deadline = Date.now() + 30_000;
    const caughtUp = async () => {
      const stored = (await getMirrorSourceOffsets(endpoint, names.source)).filter((o) => o.cluster === "east" && o.topic === topic);
      return [...sourceEnds].every(([p, e]) => stored.find((o) => o.partition === p)?.offset === e.high - 1n);
    };
    while (!(await caughtUp())) {
      if (Date.now() > deadline) throw new Error(`MM2 did not copy the last ${30 * PARTITIONS} records of ${topic} within 30 s`);
      await sleep(1000);
    }
    // Not a latency bound: after worker-restarts left MM2 exactly-once, the upstream heartbeat connector's transactional
    // producer waits for a `connect-offsets` topic on east for good, and the heartbeats really stop (seen 2026-12-02).
    const heartbeat = (await runtime.collector.runCycle()).flows.find((f) => f.id === FLOW_ID)!.heartbeat;
    expect(heartbeatBefore).not.toBeNull();
    expect(heartbeat.latestTimestamp!).toBeGreaterThanOrEqual(heartbeatBefore!);
  });

  it("with the garbage deleted from the checkpoints topic, Kafka's CheckpointFormatter reads it whole and MM2 rewrote it", async () => {
    const garbageEnd = (await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.high;
    await deleteCheckpointsBefore(garbageEnd);
    // A restarted task finds no checkpoint in the topic and emits one for every group and partition it translates.
    await restartConnector(endpoint, names.checkpoint, false);
    const deadline = Date.now() + 60_000;
    let rewritten: Timed<CheckpointRecord>[] = [];
    const has = (group: string) => new Set(rewritten.filter((r) => r.value.group === group && r.value.topic === targetTopic).map((r) => r.value.partition)).size === PARTITIONS;
    while (!has(fast) || !has(late)) {
      if (Date.now() > deadline) throw new Error(`MM2 rewrote no checkpoints of ${fast} and ${late} on ${targetTopic} within 60 s`);
      await sleep(2000);
      const end = (await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.high;
      // From the log start: any record the formatter cannot read fails this read.
      rewritten = await readCheckpoints(state, west, flow.checkpointsTopic, garbageEnd, Number(end - garbageEnd));
    }
    const last = (group: string, partition: number) => rewritten.filter((r) => r.value.group === group && r.value.topic === targetTopic && r.value.partition === partition).at(-1)!.value;
    expect(Array.from({ length: PARTITIONS }, (_, p) => last(late, p).upstream)).toEqual(Array.from({ length: PARTITIONS }, () => LATE_OFFSET));
    // The same committed offsets; a translation can only have got coarser since (newer syncs may replace older ones in
    // MM2's OffsetSyncStore), never further downstream.
    for (const [p, [upstream, downstream]] of fastSettled) {
      expect([p, last(fast, p).upstream, last(fast, p).downstream <= downstream]).toEqual([p, upstream, true]);
    }
    process.stdout.write(`[hostile-records] checkpoints from ${garbageEnd} rewritten: ${rewritten.length}, ${fast} on ${topic}: ${Array.from({ length: PARTITIONS }, (_, p) => `${p}:${last(fast, p).upstream}->${last(fast, p).downstream}`).join(" ")}\n`);
  });
});

/**
 * Deletes every record of the (compacted) checkpoints topic below `offset`, garbage included: Kafka deletes records of
 * a partition only while its cleanup.policy includes delete (Partition.deleteRecordsOnLeader), so the policy is
 * compact,delete for as long as it takes (retention stays 7 days: nothing else goes), then compact again.
 */
async function deleteCheckpointsBefore(offset: bigint): Promise<void> {
  const admin = sandboxKafka(west, "gapwatch-hostile").admin();
  await admin.connect();
  // The topic's only dynamic config is MM2's cleanup.policy=compact, so this non-incremental AlterConfigs changes only it.
  const setPolicy = (value: string) =>
    admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: flow.checkpointsTopic, configEntries: [{ name: "cleanup.policy", value }] }] });
  try {
    await setPolicy("compact,delete");
    // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first (Kafka 4.3).
    await admin.fetchTopicMetadata({ topics: [flow.checkpointsTopic] });
    const deadline = Date.now() + 15_000;
    // The broker applies the new policy from its metadata log a moment later: until then it refuses (policy violation).
    while (true) {
      const deleted = await admin.deleteTopicRecords({ topic: flow.checkpointsTopic, partitions: [{ partition: 0, offset: offset.toString() }] }).then(() => true, (err: unknown) => {
        if (Date.now() > deadline) throw err;
        return false;
      });
      if (deleted) break;
      await sleep(500);
    }
  } finally {
    await setPolicy("compact");
    await admin.disconnect();
  }
  expect((await fetchLogEnds(west, flow.checkpointsTopic)).get(0)!.low).toBe(offset);
}
