import type { Admin as KafkajsAdmin, Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClusterReader, createClusterReader, isItemError } from "@/lib/kafka";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { type ManagedProcess, stopProcess } from "@/lib/sandbox/processes";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka } from "@/lib/sandbox/topics";
import {
  describeGroupStateWithCli,
  describeShareOffsetsWithCli,
  describeStreamsOffsetsWithCli,
  ensureStreamsJar,
  listGroupsWithCli,
  setGroupConfig,
  startShareConsumer,
  startStreamsApp,
} from "./group-clients";
import { describeGroupOffsets, produce, uniqueName, waitFor } from "./helpers";

/**
 * Kafka 4's newer group types against the real sandbox (Kafka 4.3.1, where `streams.version` and
 * `share.version` are finalized at 1 by default and group.coordinator.rebalance.protocols is
 * classic,consumer,streams): a real Kafka Streams app (`group.protocol=streams`, KIP-1071) and Kafka's
 * console share consumer (KIP-932) on one replicated topic. Gapwatch lists both with their type, state,
 * members and offsets exactly as Kafka's CLI describes them; MM2 checkpoints neither (a classic group
 * on the same topic, created after them, is checkpointed: the control).
 */

let state: SandboxState;
let east: string;
let west: string;
let kafka: Kafka;
let admin: KafkajsAdmin;
let reader: ClusterReader;
let westReader: ClusterReader;
const started: ManagedProcess[] = [];

beforeAll(async () => {
  state = readSandboxState();
  east = state.clusters.east!.bootstrap;
  west = state.clusters.west!.bootstrap;
  kafka = sandboxKafka(east, "gapwatch-group-types-test");
  admin = kafka.admin();
  await admin.connect();
  reader = createClusterReader({ alias: "east", bootstrap: [east] });
  westReader = createClusterReader({ alias: "west", bootstrap: [west] });
});

afterAll(async () => {
  await Promise.all(started.map((p) => stopProcess(p, 10_000)));
  await reader?.close();
  await westReader?.close();
  await admin?.disconnect();
});

/** Group ids in the keys of MM2's checkpoints topic on the target (Kafka's ConsoleConsumer, keys printed). */
async function readCheckpointKeys(topic: string): Promise<string> {
  const westAdmin = sandboxKafka(west, "gapwatch-group-types-test").admin();
  await westAdmin.connect();
  const end = BigInt((await westAdmin.fetchTopicOffsets(topic).finally(() => westAdmin.disconnect())).find((o) => o.partition === 0)?.high ?? "0");
  if (end === 0n) return "";
  return runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    ...["--bootstrap-server", west, "--topic", topic, "--partition", "0", "--offset", "0"],
    ...["--max-messages", end.toString(), "--timeout-ms", "8000", "--formatter-property", "print.key=true", "--formatter-property", "print.value=false"],
  ]);
}

describe("streams (KIP-1071) and share (KIP-932) groups", () => {
  it("lists both with type, state, members and offsets as Kafka's CLI, and MM2 checkpoints neither", { timeout: 170_000 }, async () => {
    const topic = uniqueName("gt-topic");
    const appId = uniqueName("gt-streams");
    const shareGroup = uniqueName("gt-share");
    const control = uniqueName("gt-classic");
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] });
    await produce(kafka, topic, 0, 5);
    await produce(kafka, topic, 1, 3);
    if (state.kafkaVersion.startsWith("3.")) {
      await checkClassicOnly(topic, control);
      return;
    }
    const streams = startStreamsApp(state, await ensureStreamsJar(state), east, appId, topic);
    started.push(streams);
    // A share group starts at the log end unless its group config says otherwise.
    await setGroupConfig(state, east, shareGroup, "share.auto.offset.reset=earliest");
    const share = startShareConsumer(state, east, shareGroup, topic);
    started.push(share);

    const stable = await waitFor(
      "the streams and share groups to be stable with their member",
      async () => {
        const groups = await reader.listGroups();
        const s = groups.find((g) => g.groupId === appId);
        const h = groups.find((g) => g.groupId === shareGroup);
        return s?.state === "STABLE" && s.members === 1 && h?.state === "STABLE" && h.members === 1 ? { s, h } : undefined;
      },
      100_000,
    );
    expect(stable.s).toEqual({ groupId: appId, state: "STABLE", protocolType: "streams", groupType: "streams", members: 1 });
    expect(stable.h).toEqual({ groupId: shareGroup, state: "STABLE", protocolType: "share", groupType: "share", members: 1 });

    // Every record read: the streams app commits 5 and 3, the share group has acknowledged all 8.
    const committed = await waitFor("the streams app to commit the log ends", async () => {
      const rows = (await reader.readGroupOffsets([appId])).get(appId);
      return rows && !isItemError(rows) && rows.map((r) => r.offset).join() === "5,3" ? rows : undefined;
    });
    await waitFor("the share group to have no lag", async () => {
      const rows = (await reader.readShareGroupOffsets([shareGroup])).get(shareGroup);
      return rows && !isItemError(rows) && rows.length === 2 && rows.every((r) => r.lag === 0n) ? rows : undefined;
    });
    // Kafka's CLI (each command fails on a group of another type), and meanwhile the control: a classic
    // group on the same topic, created after both, which MM2 does checkpoint.
    const [streamsCli, streamsStateCli, shareStateCli] = await Promise.all([
      describeStreamsOffsetsWithCli(state, east, appId),
      describeGroupStateWithCli(state, east, "streams", appId),
      describeGroupStateWithCli(state, east, "share", shareGroup),
      runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
        ...["--bootstrap-server", east, "--topic", topic, "--group", control, "--from-beginning", "--max-messages", "8", "--timeout-ms", "20000"],
      ]),
    ]);
    expect(streamsCli).toEqual([
      { topic, partition: 0, offset: 5n, leaderEpoch: 0 },
      { topic, partition: 1, offset: 3n, leaderEpoch: 0 },
    ]);
    expect(committed.map((r) => ({ topic: r.topic, partition: r.partition, offset: r.offset, leaderEpoch: r.committedLeaderEpoch }))).toEqual(streamsCli);
    expect([streamsStateCli, shareStateCli]).toEqual([
      { state: "Stable", members: 1 },
      { state: "Stable", members: 1 },
    ]);

    // Both clients leave (SIGTERM: the streams app closes, the share consumer acknowledges and closes).
    await Promise.all([stopProcess(streams), stopProcess(share)]);
    const left = await waitFor("both groups to be empty", async () => {
      const groups = (await reader.listGroups()).filter((g) => g.groupId === appId || g.groupId === shareGroup);
      return groups.length === 2 && groups.every((g) => g.state === "EMPTY" && g.members === 0) ? groups : undefined;
    });
    // listGroups sorts by id: "gt-share-…" before "gt-streams-…".
    expect(left.map((g) => [g.groupId, g.groupType, g.members])).toEqual([
      [shareGroup, "share", 0],
      [appId, "streams", 0],
    ]);
    const [shareRows, shareCli] = await Promise.all([
      reader.readShareGroupOffsets([shareGroup]),
      describeShareOffsetsWithCli(state, east, shareGroup),
      waitFor("MM2 to sync the classic group's offsets to west", async () => ((await westReader.listGroups()).some((g) => g.groupId === control) ? true : undefined), 60_000),
    ]);
    expect(shareCli.map((r) => [r.partition, r.lag])).toEqual([
      [0, 0n],
      [1, 0n],
    ]);
    expect(shareRows.get(shareGroup)).toEqual(shareCli);
    // Share groups commit nothing: OffsetFetch answers them with no offsets.
    expect((await reader.readGroupOffsets([shareGroup])).get(shareGroup)).toEqual([]);

    // MM2 synced the control's offsets to west; its checkpoints topic names the control only.
    const [keys, onWestCli] = await Promise.all([readCheckpointKeys("east.checkpoints.internal"), listGroupsWithCli(state, west)]);
    expect(keys).toContain(control);
    expect(keys).not.toContain(appId);
    expect(keys).not.toContain(shareGroup);
    const onWest = onWestCli.map((g) => g.group);
    expect(onWest).toContain(control);
    expect(onWest.filter((g) => g === appId || g === shareGroup)).toEqual([]);
  });
});

/**
 * Kafka 3.9 has neither group type (streams groups and share groups came with 4.x; its KIP-848
 * consumer groups are off by default): Gapwatch's ListGroups v5, whose type filter names all four
 * types, lists a classic group as such, with the offsets Kafka's ConsumerGroupCommand shows, and MM2
 * checkpoints it.
 */
async function checkClassicOnly(topic: string, group: string): Promise<void> {
  await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
    ...["--bootstrap-server", east, "--topic", topic, "--group", group, "--from-beginning", "--max-messages", "8", "--timeout-ms", "20000"],
  ]);
  const listed = await reader.listGroups();
  expect(listed.find((g) => g.groupId === group)).toEqual({ groupId: group, state: "EMPTY", protocolType: "consumer", groupType: "classic", members: 0 });
  expect([...new Set(listed.map((g) => g.groupType))]).toEqual(["classic"]);
  const rows = (await reader.readGroupOffsets([group])).get(group);
  const fromCli = await describeGroupOffsets(state, east, group);
  expect(fromCli).toEqual([{ topic, partition: 0, offset: 5n }, { topic, partition: 1, offset: 3n }]);
  expect(isItemError(rows!) ? rows : rows!.map((r) => ({ topic: r.topic, partition: r.partition, offset: r.offset }))).toEqual(fromCli);
  await waitFor("MM2 to sync the classic group's offsets to west", async () => ((await westReader.listGroups()).some((g) => g.groupId === group) ? true : undefined), 60_000);
  expect(await readCheckpointKeys("east.checkpoints.internal")).toContain(group);
}
