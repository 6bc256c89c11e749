import { describe, expect, it } from "vitest";
import { pollCluster, reshapeTopicConfigs } from "@/lib/collector/cluster-poll";
import type { ClusterSnapshot, ConsumerGroupState } from "@/lib/collector/types";
import type { ClusterMetadata, ClusterReader, GroupOffsetRow, GroupSummary, ItemError, PartitionOffsets, ShareGroupOffsetRow } from "@/lib/kafka";
import { T0 } from "./fixtures";

const config = { alias: "east", bootstrap: ["east-1:9092", "east-2:9092"] };
const next = T0 + 10_000;

/** `orders` with partition 0 led by broker 1 and partition 1 by broker 2. */
const metadata: ClusterMetadata = {
  clusterId: "c-1",
  controllerId: 1,
  brokers: [
    { nodeId: 1, host: "east-1", port: 9092, rack: null },
    { nodeId: 2, host: "east-2", port: 9092, rack: null },
  ],
  topics: [
    {
      name: "orders",
      topicId: "6f1c2a0e-0000-4000-8000-000000000001",
      isInternal: false,
      error: null,
      partitions: [0, 1].map((partition) => ({ partition, leader: partition + 1, leaderEpoch: 4, replicas: [1, 2], isr: [1, 2], offlineReplicas: [], error: null })),
    },
  ],
};

interface Answers {
  offsets?: () => Promise<Map<string, PartitionOffsets | ItemError>>;
  groups?: () => Promise<GroupSummary[]>;
  groupOffsets?: (groupIds: string[]) => Promise<Map<string, GroupOffsetRow[] | ItemError>>;
  shareOffsets?: (groupIds: string[]) => Promise<Map<string, ShareGroupOffsetRow[] | ItemError>>;
}

/** A reader answering like lib/kafka does; what a test does not set answers normally. */
function makeReader(answers: Answers = {}): ClusterReader {
  const unused = () => Promise.reject(new Error("not read by pollCluster"));
  const offsets = new Map<string, PartitionOffsets | ItemError>([
    ["orders/0", { logStart: 0n, logEnd: 1000n, leaderEpoch: 4 }],
    ["orders/1", { logStart: 100n, logEnd: 600n, leaderEpoch: 4 }],
  ]);
  const billing: GroupOffsetRow[] = [{ topic: "orders", partition: 0, offset: 900n, committedLeaderEpoch: 4 }];
  return {
    alias: "east",
    readMetadata: () => Promise.resolve(metadata),
    readLogOffsets: answers.offsets ?? (() => Promise.resolve(offsets)),
    readTopicConfigs: () => Promise.resolve(new Map()),
    readBrokerUncleanElection: () => Promise.resolve(false),
    listGroups: answers.groups ?? (() => Promise.resolve([{ groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 2 }])),
    readGroupOffsets: answers.groupOffsets ?? (() => Promise.resolve(new Map([["billing", billing]]))),
    readEpochEndOffsets: unused,
    readEligibleLeaders: unused,
    readShareGroupOffsets: answers.shareOffsets ?? unused,
    fetchRecords: unused,
    fetchPartitions: unused,
    requestCounts: () => [],
    resetRequestCounts: () => undefined,
    close: () => Promise.resolve(),
  };
}

const poll = (reader: ClusterReader, previous: ClusterSnapshot | null, now: number) => pollCluster(reader, config, previous, { refreshConfigs: true, now });
const offsetsOf = (snapshot: ClusterSnapshot) => snapshot.topics[0]?.partitions.map((p) => [p.partition, p.logStart, p.logEnd, p.error]);
const billingRead: ConsumerGroupState = {
  groupId: "billing",
  state: "STABLE",
  protocolType: "consumer", groupType: "classic",
  members: 2,
  offsets: [{ topic: "orders", partition: 0, offset: 900n, committedLeaderEpoch: 4 }],
  error: null,
  dataAt: T0,
};

describe("pollCluster: failed reads mark exactly what they cover", () => {
  it("reads offsets and groups, each group dated to this cycle", async () => {
    const snapshot = await poll(makeReader(), null, T0);
    expect(offsetsOf(snapshot)).toEqual([
      [0, 0n, 1000n, null],
      [1, 100n, 600n, null],
    ]);
    expect([snapshot.groups, snapshot.error, snapshot.stale]).toEqual([[billingRead], null, false]);
  });

  it("puts a broker's ListOffsets failure on its partitions only", async () => {
    // lib/kafka readLogOffsets: broker 2's request failed, broker 1 answered (one result per partition).
    const offsets = () =>
      Promise.resolve(
        new Map<string, PartitionOffsets | ItemError>([
          ["orders/0", { logStart: 0n, logEnd: 1000n, leaderEpoch: 4 }],
          ["orders/1", { error: "broker 2: connect ECONNREFUSED 10.0.0.8:9092" }],
        ]),
      );
    const snapshot = await poll(makeReader({ offsets }), null, T0);
    expect(offsetsOf(snapshot)).toEqual([
      [0, 0n, 1000n, null],
      [1, null, null, "ListOffsets: broker 2: connect ECONNREFUSED 10.0.0.8:9092"],
    ]);
    expect([snapshot.reachable, snapshot.stale]).toEqual([true, false]);
  });

  it("puts the error of a ListOffsets call that failed as a whole on every partition", async () => {
    const offsets = () => Promise.reject(new Error("cluster east: no leader broker answered ListOffsets"));
    const snapshot = await poll(makeReader({ offsets }), null, T0);
    const error = "ListOffsets: cluster east: no leader broker answered ListOffsets";
    expect(offsetsOf(snapshot)).toEqual([
      [0, null, null, error],
      [1, null, null, error],
    ]);
    expect(snapshot.error).toBe(error);
  });

  it("keeps a group's last good offsets with the error and their time when its OffsetFetch fails", async () => {
    const previous = await poll(makeReader(), null, T0);
    const groupOffsets = () => Promise.resolve(new Map<string, GroupOffsetRow[] | ItemError>([["billing", { error: "coordinator 2: Request timed out after 30000 ms" }]]));
    const groups = () =>
      Promise.resolve([
        { groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 2 },
        { groupId: "audit", state: "EMPTY", protocolType: "consumer", groupType: "classic", members: 0 },
      ]);
    const snapshot = await poll(makeReader({ groups, groupOffsets }), previous, next);
    expect(snapshot.groups).toEqual([
      { groupId: "audit", state: "EMPTY", protocolType: "consumer", groupType: "classic", members: 0, offsets: [], error: "no offsets returned", dataAt: null },
      { ...billingRead, error: "coordinator 2: Request timed out after 30000 ms", dataAt: T0 },
    ]);
  });

  it("keeps every previous group, marked, when the groups cannot be listed", async () => {
    const previous = await poll(makeReader(), null, T0);
    const groups = () => Promise.reject(new Error("cluster east: ListGroups failed: broker 2: COORDINATOR_LOAD_IN_PROGRESS"));
    const snapshot = await poll(makeReader({ groups }), previous, next);
    const error = "consumer groups: cluster east: ListGroups failed: broker 2: COORDINATOR_LOAD_IN_PROGRESS";
    expect(snapshot.groups).toEqual([{ ...billingRead, error, dataAt: T0 }]);
    expect(snapshot.error).toBe(error);
  });

  it("marks every group when OffsetFetch fails as a whole", async () => {
    const previous = await poll(makeReader(), null, T0);
    const groupOffsets = () => Promise.reject(new Error("cluster east: no group coordinator answered"));
    const snapshot = await poll(makeReader({ groupOffsets }), previous, next);
    expect(snapshot.groups).toEqual([{ ...billingRead, error: "OffsetFetch: cluster east: no group coordinator answered", dataAt: T0 }]);
  });
});

describe("pollCluster: Kafka Streams and share groups", () => {
  const listed = () =>
    Promise.resolve([
      { groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 2 },
      { groupId: "wordcount", state: "STABLE", protocolType: "streams", groupType: "streams", members: 1 },
      { groupId: "jobs", state: "STABLE", protocolType: "share", groupType: "share", members: 3 },
      { groupId: "connect-cluster", state: "STABLE", protocolType: "connect", groupType: "classic", members: 1 },
    ]);
  const wordcount: GroupOffsetRow[] = [{ topic: "orders", partition: 1, offset: 550n, committedLeaderEpoch: 4 }];
  const jobs: ShareGroupOffsetRow[] = [{ topic: "orders", partition: 0, startOffset: 120n, leaderEpoch: 4, lag: 7n }];

  it("reads a streams group's committed offsets with OffsetFetch and a share group's start offsets with DescribeShareGroupOffsets", async () => {
    const asked: string[][] = [];
    const groupOffsets = (ids: string[]) => {
      asked.push(ids);
      return Promise.resolve(new Map<string, GroupOffsetRow[] | ItemError>([["billing", billingRead.offsets], ["wordcount", wordcount]]));
    };
    const shareOffsets = (ids: string[]) => {
      asked.push(ids);
      return Promise.resolve(new Map<string, ShareGroupOffsetRow[] | ItemError>([["jobs", jobs]]));
    };
    const snapshot = await poll(makeReader({ groups: listed, groupOffsets, shareOffsets }), null, T0);
    expect(asked).toEqual([["billing", "wordcount"], ["jobs"]]);
    expect(snapshot.groups).toEqual([
      billingRead,
      { groupId: "jobs", state: "STABLE", protocolType: "share", groupType: "share", members: 3, offsets: [], shareOffsets: jobs, error: null, dataAt: T0 },
      { groupId: "wordcount", state: "STABLE", protocolType: "streams", groupType: "streams", members: 1, offsets: wordcount, error: null, dataAt: T0 },
    ]);
    expect(snapshot.error).toBeNull();
  });

  it("keeps a share group's last start offsets, marked, when DescribeShareGroupOffsets fails; other groups stay current", async () => {
    const groupOffsets = () => Promise.resolve(new Map<string, GroupOffsetRow[] | ItemError>([["billing", billingRead.offsets], ["wordcount", wordcount]]));
    const previous = await poll(makeReader({ groups: listed, groupOffsets, shareOffsets: () => Promise.resolve(new Map([["jobs", jobs]])) }), null, T0);
    const failing = () => Promise.reject(new Error("cluster east: no group coordinator answered"));
    const snapshot = await poll(makeReader({ groups: listed, groupOffsets, shareOffsets: failing }), previous, next);
    const error = "DescribeShareGroupOffsets: cluster east: no group coordinator answered";
    expect(snapshot.groups.map((g) => [g.groupId, g.shareOffsets ?? null, g.error, g.dataAt])).toEqual([
      ["billing", null, null, next],
      ["jobs", jobs, error, T0],
      ["wordcount", null, null, next],
    ]);
    expect(snapshot.error).toBe(error);
  });
});

describe("reshapeTopicConfigs", () => {
  it("parses the six configs DescribeConfigs returns, min.insync.replicas and max.message.bytes as numbers (null when absent or not one)", () => {
    const raw = {
      "retention.ms": "604800000",
      "retention.bytes": "-1",
      "cleanup.policy": "compact",
      "unclean.leader.election.enable": "true",
      "min.insync.replicas": "2",
      "max.message.bytes": "1048588",
    };
    expect(reshapeTopicConfigs(raw)).toEqual({ retentionMs: 604_800_000n, retentionBytes: null, cleanupPolicy: "compact", uncleanLeaderElection: true, minInsyncReplicas: 2, maxMessageBytes: 1_048_588 });
    expect([reshapeTopicConfigs({}).minInsyncReplicas, reshapeTopicConfigs({ "min.insync.replicas": "two" }).minInsyncReplicas]).toEqual([null, null]);
    expect([reshapeTopicConfigs({}).maxMessageBytes, reshapeTopicConfigs({ "max.message.bytes": "big" }).maxMessageBytes]).toEqual([null, null]);
  });
});
