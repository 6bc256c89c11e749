import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getGroup } from "@/app/api/flows/[flow]/groups/[group]/route";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { readPartition, runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers } from "../support/runtime";

/**
 * Kafka's own MM2 look-alike (MirrorConnectorsIntegrationBaseTest.testOffsetTranslationBehindReplicationFlow): a
 * consumer group on the source, behind the log end, reset backwards by an operator while nothing uses it on the
 * target. MirrorCheckpointTask (4.3.1, checkpointIsMoreRecent) emits a checkpoint whenever the upstream offset went
 * back, so MM2's checkpoints go backwards; its group-offset sync (sync.group.offsets.enabled, syncGroupOffset) writes
 * a target group only while it is EMPTY or absent and only forward (`latestDownstreamOffset >= converted` is
 * skipped), so the target group keeps the offsets MM2 synced before the rewind. Expected: no alert at all for the
 * group or the topic (not TARGET_GROUP_REWOUND, not TRANSLATION_ERROR, not CHECKPOINT_STALE), and the group's
 * failover figures following the new upstream offsets, checked against `kafka-consumer-groups --describe` on both
 * clusters and the target's records by content. The contrast: the same group active on the target and moved back
 * there to MM2's checkpoint while the source group stays put (what KAFKA-19794 does) raises TARGET_GROUP_REWOUND.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const flowParam = encodeURIComponent("east->west");
const id = randomUUID().slice(0, 8);
const topic = `rewind-${id}`;
const remote = `east.${topic}`;
const group = `rewind-group-${id}`;
const records = 300;
const lagging = 250;
/** Partition 0 is reset with --to-offset, partition 1 with --to-earliest. */
const rewoundTo = new Map([[0, 120n], [1, 0n]]);
// CHECKPOINT_STALE's own threshold is max(3 x emit, 60 s): 30 s lets the test outlast it after the rewind. A group
// MM2 has never checkpointed still gets at least 60 s (its first checkpoint took over 30 s on a loaded CI machine).
const checkpointStaleMs = 30_000;
const runtime = createSandboxRuntime(state, 5, { checkpointStaleMs });
const consumerGroupCommand = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

interface GroupRow {
  topic: string;
  partition: number;
  committed: string;
  groupLag: string | null;
  checkpoint: { upstream: string; downstream: string } | null;
  ideal: { kind: string; downstream?: string };
  failoverReread: { records: string; skip: string } | null;
}

/** One row of `kafka-consumer-groups --describe`: the committed offset, the log end and the lag Kafka prints. */
interface DescribedRow {
  current: bigint;
  logEnd: bigint;
  lag: bigint;
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 90_000) =>
  cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

const alertsAbout = (): AlertRecord[] => runtime.alerts.list({}).filter((a) => a.group === group || a.topic === topic || a.topic === remote);

/** The group's rows of this test's topic, as GET /api/flows/{flow}/groups/{group} serves them (none before MM2 checkpoints it). */
async function readGroupRows(): Promise<GroupRow[]> {
  const { status, body } = await callRoute(getGroup, `/api/flows/${flowParam}/groups/${group}?sort=topic`, { flow: flowParam, group });
  if (status !== 200) return [];
  return (body.partitions as GroupRow[]).filter((r) => r.topic === topic).sort((a, b) => a.partition - b.partition);
}

/** Cycles until the group's rows satisfy `check`. */
async function waitForRows(check: (rows: GroupRow[]) => boolean, what: string, timeoutMs = 90_000): Promise<GroupRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await runtime.collector.runCycle();
    const rows = await readGroupRows();
    if (check(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(rows)}`);
    await sleep(1000);
  }
}

/** `kafka-consumer-groups --describe --group <group>` on one cluster, per partition of `name`. */
async function describeGroup(bootstrap: string, name: string): Promise<Map<number, DescribedRow>> {
  const out = await runKafkaTool(state, consumerGroupCommand, ["--bootstrap-server", bootstrap, "--describe", "--group", group]);
  const rows = out.split("\n").map((l) => l.trim().split(/\s+/)).filter((c) => c[0] === group && c[1] === name);
  return new Map(rows.map((c) => [Number(c[2]), { current: BigInt(c[3]!), logEnd: BigInt(c[4]!), lag: BigInt(c[5]!) }]));
}

/** Source offsets (from the values) of the target partition's records, in target order. */
async function readTargetSourceOffsets(partition: number): Promise<number[]> {
  const copied = await readPartition(state, west, remote, partition, 0n, records);
  return copied.map((r) => (JSON.parse(r.value) as { offset: number }).offset);
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 2 }]);
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  // Values name their source offset: one producer, in order, into a fresh topic. Three batches: MM2's syncs follow.
  for (let batch = 0; batch < 3; batch++) {
    const messages = [0, 1].flatMap((partition) =>
      Array.from({ length: records / 3 }, (_, i) => ({ partition, value: JSON.stringify({ topic, partition, offset: batch * (records / 3) + i }) })),
    );
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
  const copied = (s: Snapshot) => [0, 1].every((p) => s.flows[0]?.partitions.find((r) => r.topic === topic && r.partition === p)?.targetLogEnd === BigInt(records));
  await cycleUntil(copied, `${topic} copied to ${remote}`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await deleteLeftovers([
    { bootstrap: east, topics: [topic], groups: [group] },
    { bootstrap: west, topics: [remote], groups: [group] },
  ]);
});

describe("a lagging group rewound upstream (Kafka's own MM2 test)", () => {
  let synced: Map<number, DescribedRow>;

  it("checkpoints go backwards with the group, the failover figures follow exactly, and nothing is raised", { timeout: 240_000 }, async () => {
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    try {
      await admin.setOffsets({ groupId: group, topic, partitions: [0, 1].map((partition) => ({ partition, offset: String(lagging) })) });
    } finally {
      await admin.disconnect();
    }
    const committedAt = Date.now();
    await waitForRows((rows) => rows.length === 2 && rows.every((r) => r.checkpoint?.upstream === String(lagging)), `MM2's checkpoints of ${group} at ${lagging}`);
    // What CHECKPOINT_STALE's floor for a new group (60 s) has to cover: MM2's group refresh and task reconfiguration.
    process.stdout.write(`[lookalike-groups] MM2's first checkpoints of the new group seen ${((Date.now() - committedAt) / 1000).toFixed(1)} s after its commit\n`);
    // MM2 created the target group (absent there) with the translated offsets: wait until Kafka shows them.
    const deadline = Date.now() + 60_000;
    while ((synced = await describeGroup(west, remote)).size < 2) {
      if (Date.now() > deadline) throw new Error(`MM2 did not sync ${group} to ${west} within 60 s`);
      await sleep(2000);
    }

    // The operator's rewind, with Kafka's own tool (the group has no member, as --reset-offsets requires).
    for (const [partition, to] of rewoundTo) {
      const how = to === 0n ? ["--to-earliest"] : ["--to-offset", to.toString()];
      await runKafkaTool(state, consumerGroupCommand, ["--bootstrap-server", east, "--reset-offsets", "--group", group, "--topic", `${topic}:${partition}`, ...how, "--execute"]);
    }
    const rewoundAt = Date.now();
    // Cycles that read the group rewound before MM2's rewound checkpoint: its old one is ahead (a failover would skip).
    let aheadCycles = 0;
    const rows = await waitForRows((rs) => {
      if (rs.some((r) => r.committed === rewoundTo.get(r.partition)!.toString() && r.failoverReread?.skip === "certain")) aheadCycles++;
      return rs.length === 2 && rs.every((r) => r.committed === rewoundTo.get(r.partition)!.toString() && r.checkpoint?.upstream === r.committed);
    }, `MM2's checkpoints of ${group} rewound`);
    process.stdout.write(`[lookalike-groups] ${aheadCycles} cycle(s) read the old checkpoint ahead of the rewound group\n`);

    // Kafka's view of the source group: Gapwatch's committed offsets and lag are Kafka's.
    const source = await describeGroup(east, topic);
    for (const row of rows) {
      const kafka = source.get(row.partition)!;
      expect([row.committed, row.groupLag]).toEqual([kafka.current.toString(), kafka.lag.toString()]);
      expect(kafka.logEnd).toBe(BigInt(records));
    }
    // Kafka's view of the target group: MM2 never rewinds it (syncGroupOffset only moves forward).
    const target = await describeGroup(west, remote);
    expect(target).toEqual(synced);
    for (const row of rows) expect(target.get(row.partition)!.current > BigInt(row.checkpoint!.downstream)).toBe(true);

    // The failover re-read from MM2's checkpoint, against the target's records: those before the group's record.
    for (const row of rows) {
      const offsets = await readTargetSourceOffsets(row.partition);
      const from = Number(row.checkpoint!.downstream);
      const committed = Number(row.committed);
      const reread = offsets.slice(from).findIndex((o) => o >= committed);
      expect(offsets.slice(from, from + reread).every((o) => o < committed)).toBe(true);
      expect(row.failoverReread).toMatchObject({ records: String(reread), skip: "none" });
      expect(row.ideal).toMatchObject({ kind: "exact", downstream: String(offsets.indexOf(committed)) });
      process.stdout.write(`[lookalike-groups] ${topic}/${row.partition}: rewound to ${committed}, checkpoint →${from}, failover re-reads ${reread} (target group left at ${target.get(row.partition)!.current})\n`);
    }

    // Past the stale-checkpoint threshold since the rewind: still nothing.
    while (Date.now() - rewoundAt < checkpointStaleMs + 5000) {
      await runtime.collector.runCycle();
      await sleep(2000);
    }
    expect(alertsAbout().map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });

  it("contrast: the group active on the target and moved back there to MM2's checkpoint raises TARGET_GROUP_REWOUND", { timeout: 180_000 }, async () => {
    const consumer = sandboxKafka(west, `rewind-consumer-${id}`).consumer({ groupId: group, sessionTimeout: 30_000 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: remote, fromBeginning: false });
      // Reading is all it does: kafkajs commits each batch's offsets itself.
      await consumer.run({ eachMessage: async () => undefined });
      // The consumer resumes at the offsets MM2 synced and reads to the end; kafkajs commits as it goes.
      await cycleUntil(
        (s) => s.clusters.find((c) => c.alias === "west")!.groups.some((g) => g.groupId === group && g.members === 1 && g.offsets.filter((o) => o.topic === remote).every((o) => o.offset === BigInt(records))),
        `${group} active on ${remote} at its end`,
      );
      const rows = await readGroupRows();
      const checkpoint = BigInt(rows.find((r) => r.partition === 0)!.checkpoint!.downstream);
      // Moved back to MM2's checkpoint while the source group stays where the operator put it.
      await consumer.commitOffsets([{ topic: remote, partition: 0, offset: checkpoint.toString() }]);
      await cycleUntil(() => runtime.alerts.list({ type: "TARGET_GROUP_REWOUND" }).some((a) => a.group === group), "TARGET_GROUP_REWOUND", 60_000);
      expect(alertsAbout().map((a) => [a.type, a.severity, a.evidence.partitions, a.evidence.rewoundRecords])).toEqual([
        ["TARGET_GROUP_REWOUND", "critical", `${remote}/0:${records}->${checkpoint}`, String(BigInt(records) - checkpoint)],
      ]);
      expect((await describeGroup(east, topic)).get(0)!.current).toBe(rewoundTo.get(0));
    } finally {
      await consumer.disconnect();
    }
  });
});
