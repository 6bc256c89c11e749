import path from "node:path";
import { ConfigResourceTypes, type Admin as KafkajsAdmin, type Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClusterReader, createClusterReader, isItemError, type PartitionLeader, topicConfigKeys } from "@/lib/kafka";
import { describeTopicIds, readPartition, runKafkaTool, topicIdToHex } from "@/lib/sandbox/kafka-cli";
import { sandboxDir } from "@/lib/sandbox/paths";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka, workloadTopics } from "@/lib/sandbox/topics";
import { deleteRecords, describeGroupOffsets, getOffsetShell, lastBatchLeaderEpoch, produce, uniqueName, waitFor } from "./helpers";

let state: SandboxState;
let east: string;
let kafka: Kafka;
let admin: KafkajsAdmin;
let reader: ClusterReader;

beforeAll(async () => {
  state = readSandboxState();
  east = state.clusters.east!.bootstrap;
  kafka = sandboxKafka(east, "gapwatch-kafka-test");
  admin = kafka.admin();
  await admin.connect();
  reader = createClusterReader({ alias: "east", bootstrap: [east] });
});

afterAll(async () => {
  await reader?.close();
  await admin?.disconnect();
});

async function createTopic(topic: string, partitions: number, configs: Record<string, string> = {}): Promise<void> {
  await admin.createTopics({
    topics: [{ topic, numPartitions: partitions, replicationFactor: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
  });
  await waitUntilServed([topic], partitions);
}

/**
 * Until every partition of `topics` answers ListOffsets (kafkajs): a loaded broker can name a leader
 * in its metadata, or not know the topic yet, a moment after CreateTopics returned (seen with Kafka
 * 3.9.1, where kafkajs' own `waitForLeaders` then threw UNKNOWN_TOPIC_OR_PARTITION). A client of its
 * own: kafkajs keeps refreshing the metadata of every topic it was asked about, and a later test
 * deletes one of them.
 */
async function waitUntilServed(topics: string[], partitions: number): Promise<void> {
  const probe = kafka.admin();
  await probe.connect();
  try {
    await waitFor(`${topics.length} new topics served`, async () => {
      const served = await Promise.all(topics.map(async (t) => (await probe.fetchTopicOffsets(t)).length === partitions));
      return served.every(Boolean) ? true : undefined;
    });
  } finally {
    await probe.disconnect();
  }
}

async function partitionsOf(topics: string[]): Promise<PartitionLeader[]> {
  const md = await reader.readMetadata();
  return md.topics.filter((t) => topics.includes(t.name)).flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader })));
}

describe("readMetadata", () => {
  it("returns the workload topics with TopicCommand's topic IDs (as hex), partition counts and leaders", async () => {
    const md = await reader.readMetadata();
    const names = workloadTopics.map((t) => t.topic);
    const ids = await describeTopicIds(state, east, names);
    expect(md.brokers.map((b) => `${b.host}:${b.port}`)).toEqual([east]);
    expect(md.controllerId).toBe(md.brokers[0]!.nodeId);
    for (const { topic, partitions } of workloadTopics) {
      const t = md.topics.find((x) => x.name === topic);
      expect(t?.topicId).toBe(topicIdToHex(ids.get(topic)!));
      expect(t?.isInternal).toBe(false);
      expect(t?.partitions.map((p) => p.partition)).toEqual([...Array(partitions).keys()]);
      expect(t?.partitions.every((p) => p.leader === 1 && p.isr.join() === "1" && p.error === null)).toBe(true);
    }
  });

  it("reports leader epochs equal to the epoch Kafka stamped on the newest batch (DumpLogSegments)", async () => {
    const topic = uniqueName("kh-epoch");
    await createTopic(topic, 2);
    await produce(kafka, topic, 0, 3);
    await produce(kafka, topic, 1, 2);
    const md = await reader.readMetadata();
    const offsets = await reader.readLogOffsets(await partitionsOf([topic]));
    for (const p of md.topics.find((t) => t.name === topic)!.partitions) {
      const stamped = await lastBatchLeaderEpoch(state, path.join(sandboxDir, "east", "log"), topic, p.partition);
      expect(p.leaderEpoch).toBe(stamped);
      expect(offsets.get(`${topic}/${p.partition}`)).toMatchObject({ leaderEpoch: stamped });
    }
  });
});

describe("readLogOffsets", () => {
  it("matches GetOffsetShell and kafkajs after producing known counts and after DeleteRecords", async () => {
    const topic = uniqueName("kh-offsets");
    await createTopic(topic, 3);
    await produce(kafka, topic, 0, 5);
    await produce(kafka, topic, 2, 12);
    await deleteRecords(state, east, topic, 2, 4);

    const offsets = await reader.readLogOffsets(await partitionsOf([topic]));
    const [earliest, latest, kafkajsOffsets] = await Promise.all([getOffsetShell(state, east, topic, -2), getOffsetShell(state, east, topic, -1), admin.fetchTopicOffsets(topic)]);
    expect([...earliest.values(), ...latest.values()]).toEqual([0n, 0n, 4n, 5n, 0n, 12n]);
    for (const p of [0, 1, 2]) {
      expect(offsets.get(`${topic}/${p}`)).toEqual({ logStart: earliest.get(p), logEnd: latest.get(p), leaderEpoch: 0 });
      const k = kafkajsOffsets.find((o) => o.partition === p)!;
      expect([BigInt(k.low), BigInt(k.high)]).toEqual([earliest.get(p), latest.get(p)]);
    }
  });

  it("fails only the partitions that do not exist or have no leader", async () => {
    const offsets = await reader.readLogOffsets([
      { topic: "orders", partition: 0, leader: 1 },
      { topic: "orders", partition: 99, leader: 1 },
      { topic: "payments", partition: 0, leader: null },
    ]);
    expect(offsets.get("orders/0")).toMatchObject({ logStart: 0n });
    expect(offsets.get("orders/99")).toEqual({ error: "UNKNOWN_TOPIC_OR_PARTITION" });
    expect(offsets.get("payments/0")).toEqual({ error: "LEADER_NOT_AVAILABLE" });
  });
});

describe("request counting", () => {
  it("one cycle over 30 topics sends exactly 1 Metadata and 2 ListOffsets to the one broker", async () => {
    const topics = Array.from({ length: 30 }, (_, i) => uniqueName(`kh-many-${i}`));
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 4, replicationFactor: 1 })) });
    await waitUntilServed(topics, 4);
    await Promise.all(topics.map((t, i) => produce(kafka, t, i % 4, i % 5)));

    const fresh = createClusterReader({ alias: "east", bootstrap: [east] });
    try {
      const cycle = async () => {
        const md = await fresh.readMetadata();
        const all = md.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader })));
        return { all, offsets: await fresh.readLogOffsets(all) };
      };
      const { all, offsets } = await cycle();
      expect(all.length).toBeGreaterThanOrEqual(120);
      expect([...offsets.values()].filter(isItemError)).toEqual([]);
      for (const [i, t] of topics.entries()) {
        for (const k of await admin.fetchTopicOffsets(t)) {
          expect(offsets.get(`${t}/${k.partition}`)).toMatchObject({ logStart: BigInt(k.low), logEnd: BigInt(k.high) });
        }
        expect(offsets.get(`${t}/${i % 4}`)).toMatchObject({ logEnd: BigInt(i % 5) });
      }
      // The first cycle also negotiates protocol versions once.
      expect(fresh.requestCounts()).toEqual([
        { api: "ApiVersions", broker: "1", count: 1 },
        { api: "ListOffsets", broker: "1", count: 2 },
        { api: "Metadata", broker: "1", count: 1 },
      ]);
      fresh.resetRequestCounts();
      await cycle();
      expect(fresh.requestCounts()).toEqual([
        { api: "ListOffsets", broker: "1", count: 2 },
        { api: "Metadata", broker: "1", count: 1 },
      ]);
    } finally {
      await fresh.close();
    }
  });
});

describe("readTopicConfigs / readBrokerUncleanElection", () => {
  it("reads the five configs as Kafka reports them, with per-topic errors", async () => {
    const topic = uniqueName("kh-configs");
    await createTopic(topic, 1, { "retention.ms": "123456", "cleanup.policy": "compact" });
    const configs = await reader.readTopicConfigs([topic, "kh-does-not-exist"]);
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [...topicConfigKeys] }],
    });
    const expected = Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    expect(expected).toMatchObject({ "retention.ms": "123456", "cleanup.policy": "compact", "min.insync.replicas": "1" });
    expect(configs.get(topic)).toEqual(expected);
    expect(configs.get("kh-does-not-exist")).toMatchObject({ error: expect.stringMatching(/^UNKNOWN_TOPIC_OR_PARTITION/) });
  });

  it("reads the broker's unclean.leader.election.enable", async () => {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.BROKER, name: "1", configNames: ["unclean.leader.election.enable"] }],
    });
    expect(await reader.readBrokerUncleanElection()).toBe(described.resources[0]!.configEntries[0]!.configValue === "true");
  });
});

describe("listGroups / readGroupOffsets", () => {
  it("matches ConsumerGroupCommand for a kafkajs group, whose commits carry no leader epoch", async () => {
    const topic = uniqueName("kh-group-topic");
    const groupId = uniqueName("kh-group");
    await createTopic(topic, 3);
    await produce(kafka, topic, 0, 4);
    await produce(kafka, topic, 2, 6);
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => void (seen += 1) });
    try {
      await waitFor("10 records consumed", async () => (seen >= 10 ? true : undefined));
      const stable = await waitFor("the group to be stable", async () => (await reader.listGroups()).find((g) => g.groupId === groupId && g.state === "STABLE"));
      expect(stable).toEqual({ groupId, state: "STABLE", protocolType: "consumer", groupType: "classic", members: 1 });
    } finally {
      await consumer.disconnect();
    }
    const groups = await reader.listGroups();
    expect(groups.find((g) => g.groupId === groupId)).toEqual({ groupId, state: "EMPTY", protocolType: "consumer", groupType: "classic", members: 0 });
    const fromKafkajs = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
    expect(groups.map((g) => g.groupId).sort()).toEqual(fromKafkajs);

    const offsets = await reader.readGroupOffsets([groupId, "kh-never-existed"]);
    const rows = offsets.get(groupId);
    const fromCli = await describeGroupOffsets(state, east, groupId);
    expect(fromCli).toEqual([{ topic, partition: 0, offset: 4n }, { topic, partition: 2, offset: 6n }]);
    expect(rows).toEqual(fromCli.map((r) => ({ ...r, committedLeaderEpoch: -1 })));
    expect(offsets.get("kh-never-existed")).toEqual([]);
  });
});

describe("fetchRecords / fetchPartitions", () => {
  it("returns exactly the produced records in order, group-less, and reports OFFSET_OUT_OF_RANGE", async () => {
    const topic = uniqueName("kh-fetch");
    await createTopic(topic, 1);
    await produce(kafka, topic, 0, 4, "first");
    await produce(kafka, topic, 0, 3, "second");
    const groupsBefore = (await admin.listGroups()).groups.map((g) => g.groupId).sort();

    const all = await reader.fetchRecords(topic, 0, 0n);
    if (isItemError(all)) throw new Error(all.error);
    const console = await readPartition(state, east, topic, 0, 0n, 7);
    expect(all.records.map((r) => [r.offset, r.value?.toString()])).toEqual(console.map((r) => [r.offset, r.value]));
    expect(all.records.map((r) => r.key?.toString())).toEqual(["k0", "k1", "k2", "k3", "k0", "k1", "k2"]);
    expect(all.records[4]!.headers).toEqual([{ key: "source", value: Buffer.from("h0") }]);
    expect(all).toMatchObject({ highWatermark: 7n, logStartOffset: 0n, nextOffset: 7n });

    const tail = await reader.fetchRecords(topic, 0, 5n);
    expect(!isItemError(tail) && tail.records.map((r) => r.offset)).toEqual([5n, 6n]);
    const empty = await reader.fetchRecords(topic, 0, 7n, { maxWaitMs: 50 });
    expect(empty).toEqual({ records: [], highWatermark: 7n, logStartOffset: 0n, nextOffset: 7n, controlBatches: 0 });
    expect(await reader.fetchRecords(topic, 0, 100n)).toEqual({ error: "OFFSET_OUT_OF_RANGE" });

    await deleteRecords(state, east, topic, 0, 3);
    expect(await reader.fetchRecords(topic, 0, 0n)).toEqual({ error: "OFFSET_OUT_OF_RANGE" });
    const afterDelete = await reader.fetchRecords(topic, 0, 3n);
    expect(!isItemError(afterDelete) && [afterDelete.logStartOffset, afterDelete.records.map((r) => r.offset)]).toEqual([3n, [3n, 4n, 5n, 6n]]);

    expect((await admin.listGroups()).groups.map((g) => g.groupId).sort()).toEqual(groupsBefore);
    expect((await reader.listGroups()).some((g) => g.groupId.includes("groupless"))).toBe(false);
  });

  it("follows a topic that was deleted and recreated (new topic ID) without a new reader", async () => {
    const topic = uniqueName("kh-reset");
    await createTopic(topic, 1);
    await produce(kafka, topic, 0, 2, "old");
    const oldId = (await reader.readMetadata()).topics.find((t) => t.name === topic)?.topicId;
    expect(await reader.fetchRecords(topic, 0, 0n)).toMatchObject({ nextOffset: 2n });

    await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", east, "--delete", "--topic", topic]);
    await waitFor("the topic to be gone", async () => ((await admin.listTopics()).includes(topic) ? undefined : true));
    await createTopic(topic, 1);
    await produce(kafka, topic, 0, 1, "new");

    // The reader still routes by the old topic ID: Fetch v13+ answers UNKNOWN_TOPIC_ID, the reader
    // refreshes that topic's metadata and retries once.
    reader.resetRequestCounts();
    const again = await reader.fetchRecords(topic, 0, 0n);
    expect(!isItemError(again) && again.records.map((r) => r.value?.toString())).toEqual(["new-0"]);
    expect(reader.requestCounts()).toEqual([
      { api: "Fetch", broker: "1", count: 2 },
      { api: "Metadata", broker: "1", count: 1 },
    ]);
    const newId = (await reader.readMetadata()).topics.find((t) => t.name === topic)?.topicId;
    expect(newId).not.toBe(oldId);
    expect(newId).toBe(topicIdToHex((await describeTopicIds(state, east, [topic])).get(topic)!));
  });

  it("fetches several partitions in one Fetch per broker", async () => {
    const topic = uniqueName("kh-fetch-multi");
    await createTopic(topic, 4);
    await Promise.all([produce(kafka, topic, 0, 2), produce(kafka, topic, 1, 5), produce(kafka, topic, 3, 1)]);
    await reader.readMetadata();
    reader.resetRequestCounts();
    const results = await reader.fetchPartitions([0, 1, 2, 3].map((partition) => ({ topic, partition, offset: 0n })));
    const latest = await getOffsetShell(state, east, topic, -1);
    for (const p of [0, 1, 2, 3]) {
      const r = results.get(`${topic}/${p}`);
      expect(!isItemError(r) && r?.records.length).toBe(Number(latest.get(p)));
    }
    expect(reader.requestCounts()).toEqual([{ api: "Fetch", broker: "1", count: 1 }]);
  });

  it("lists a KIP-848 (group.protocol=consumer) group with its type, real state and members, and its offsets as ConsumerGroupCommand", { timeout: 120_000 }, async () => {
    const topic = uniqueName("kh-kip848-topic");
    const groupId = uniqueName("kh-kip848");
    await createTopic(topic, 2);
    await produce(kafka, topic, 0, 3);
    await produce(kafka, topic, 1, 5);
    // Kafka's own console consumer on the new protocol; it leaves (and commits) 8 s after its last record.
    const consuming = runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
      ...["--bootstrap-server", east, "--topic", topic, "--group", groupId, "--from-beginning"],
      ...["--max-messages", "1000", "--timeout-ms", "8000", "--consumer-property", "group.protocol=consumer"],
    ]).catch((err: unknown) => String(err));
    if (state.kafkaVersion.startsWith("3.")) {
      // Kafka 3.9 ships KIP-848 as early access, off unless group.coordinator.rebalance.protocols
      // names `consumer` (default `classic`): its broker refuses the member's heartbeats, the console
      // consumer reads nothing before its time-out, and no such group exists to list.
      expect(await consuming).toBe("");
      expect((await reader.listGroups()).filter((g) => g.groupId === groupId)).toEqual([]);
      return;
    }
    const stable = await waitFor("the KIP-848 group to be stable with its member", async () =>
      (await reader.listGroups()).find((g) => g.groupId === groupId && g.state === "STABLE" && g.members === 1), 60_000,
    );
    expect(stable).toEqual({ groupId, state: "STABLE", protocolType: "consumer", groupType: "consumer", members: 1 });
    await consuming;
    const left = await waitFor("the member to leave", async () => (await reader.listGroups()).find((g) => g.groupId === groupId && g.members === 0), 60_000);
    expect(left).toEqual({ groupId, state: "EMPTY", protocolType: "consumer", groupType: "consumer", members: 0 });
    const fromCli = await describeGroupOffsets(state, east, groupId);
    expect(fromCli).toEqual([{ topic, partition: 0, offset: 3n }, { topic, partition: 1, offset: 5n }]);
    const rows = (await reader.readGroupOffsets([groupId])).get(groupId);
    expect(isItemError(rows!) ? rows : rows!.map(({ topic: t, partition, offset }) => ({ topic: t, partition, offset }))).toEqual(fromCli);
  });
});
