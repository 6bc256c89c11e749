import { describe, expect, it } from "vitest";
import type { ConnectClusterSnapshot, Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import type { Connector, TaskStatus } from "@/lib/connect/types";
import { describeSettingNotes, listFlowSummaries, listPartitionRows, listTopicRows, summarizeFlow } from "@/lib/views/flows";

const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);

function makePartition(overrides: Partial<FlowPartition> = {}): FlowPartition {
  return {
    topic: "orders",
    partition: 0,
    targetTopic: "east.orders",
    sourceConnector: "mm2-source",
    sourceTopicId: "Xy3-topic-id",
    sourceLogStart: 0n,
    sourceLogEnd: 100n,
    sourceLeaderEpoch: 3,
    mm2Position: 90n,
    committedPosition: 89n,
    positionSource: "offset-sync",
    targetLogStart: 0n,
    targetLogEnd: 90n,
    lag: 10n,
    offsetLag: 10n,
    lagBasis: "offsets",
    transactionMarkersSeen: false,
    targetDensityIssue: null,
    latestSync: { upstream: 80n, downstream: 80n },
    oldestUnreplicatedTimestamp: null,
    unknown: null,
    ...overrides,
  };
}

function makeFlow(overrides: Partial<Flow> = {}): Flow {
  return {
    id: "east->west",
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: null },
    replicationPolicy: { kind: "default", separator: "." },
    topicsFilter: ".*",
    groupsFilter: ".*",
    groupsExclude: "console-consumer-.*, connect-.*, __.*",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
    warnings: [],
    excludedTopics: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
    checkpointsTopic: "east.checkpoints.internal",
    partitions: [makePartition()],
    checkpoints: [],
    heartbeat: { latestTimestamp: T0 - 1500, latencyMs: 1500 },
    totals: { topics: 1, partitions: 1, lag: 10n, unknownPositions: 0 },
    errors: [],
    ...overrides,
  };
}

function makeTask(id: number, state: string): TaskStatus {
  return { id, state, workerId: "connect-1:8083", trace: null, rootCause: null };
}

function makeConnector(name: string, tasks: TaskStatus[]): Connector {
  return {
    name,
    type: "source",
    connectorClass: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    state: "RUNNING",
    workerId: "connect-1:8083",
    trace: null,
    rootCause: null,
    tasks,
    config: {},
  };
}

function makeConnect(name: string, connectors: Connector[]): ConnectClusterSnapshot {
  return { name, url: `http://${name}:8083`, reachable: true, error: null, dataAt: T0, connectors };
}

function makeSnapshot(overrides: Partial<Snapshot> = {}): Snapshot {
  return { cycle: 7, takenAt: T0, durationMs: 120, clusters: [], connect: [], flows: [], malformedRecords: {}, ...overrides };
}

describe("listTopicRows", () => {
  it("sums offsets and lag per topic in the order topics first appear", () => {
    const flow = makeFlow({
      partitions: [
        makePartition({ topic: "orders", partition: 0, sourceLogEnd: 100n, targetLogEnd: 90n, lag: 10n, oldestUnreplicatedTimestamp: T0 - 42_000 }),
        makePartition({ topic: "orders", partition: 1, sourceLogEnd: 9007199254740993n, targetLogEnd: 9007199254740990n, lag: 3n, oldestUnreplicatedTimestamp: T0 - 7_500 }),
        makePartition({ topic: "payments", targetTopic: "east.payments", sourceLogEnd: 5n, targetLogEnd: 5n, lag: 0n }),
      ],
    });
    // lagSeconds: the oldest unreplicated record of the topic (orders/0, 42 s before the snapshot); 0 without lag.
    expect(listTopicRows(flow, T0)).toEqual([
      { topic: "orders", targetTopic: "east.orders", partitions: 2, sourceLogEnd: 9007199254741093n, targetLogEnd: 9007199254741080n, lag: 13n, unknownPositions: 0, unknownPartitions: 0, internal: false, lagSeconds: 42 },
      { topic: "payments", targetTopic: "east.payments", partitions: 1, sourceLogEnd: 5n, targetLogEnd: 5n, lag: 0n, unknownPositions: 0, unknownPartitions: 0, internal: false, lagSeconds: 0 },
    ]);
  });

  it("counts unknown lags and adds nothing for unknown log ends", () => {
    const flow = makeFlow({
      partitions: [
        makePartition({ partition: 0, sourceLogEnd: null, targetLogEnd: null, lag: null }),
        makePartition({ partition: 1, sourceLogEnd: 40n, targetLogEnd: null, lag: null }),
        makePartition({ partition: 2, sourceLogEnd: 60n, targetLogEnd: 50n, lag: 10n }),
      ],
    });
    // No partition's age is known (two unknown lags, one lag without the timestamp of its oldest record): null.
    expect(listTopicRows(flow, T0)).toEqual([
      { topic: "orders", targetTopic: "east.orders", partitions: 3, sourceLogEnd: 100n, targetLogEnd: 50n, lag: 10n, unknownPositions: 2, unknownPartitions: 0, internal: false, lagSeconds: null },
    ]);
  });

  it("marks heartbeats, *.internal and __ topics as internal", () => {
    const flow = makeFlow({
      partitions: ["heartbeats", "north.heartbeats", "orders.internal", "__consumer_offsets", "orders", "heartbeats-archive"].map((topic) =>
        makePartition({ topic, targetTopic: `east.${topic}` }),
      ),
    });
    expect(listTopicRows(flow, T0).map((r) => [r.topic, r.internal])).toEqual([
      ["heartbeats", true],
      ["north.heartbeats", true],
      ["orders.internal", true],
      ["__consumer_offsets", true],
      ["orders", false],
      ["heartbeats-archive", false],
    ]);
  });

  it("returns no rows for a flow without partitions", () => {
    expect(listTopicRows(makeFlow({ partitions: [] }), T0)).toEqual([]);
  });
});

describe("listPartitionRows", () => {
  it("lists the fields operators compare, in partition order", () => {
    const flow = makeFlow({
      partitions: [
        makePartition({ oldestUnreplicatedTimestamp: T0 - 2_500 }),
        makePartition({ partition: 1, mm2Position: null, committedPosition: null, positionSource: null, lag: null, latestSync: null }),
      ],
    });
    expect(listPartitionRows(flow, T0)).toEqual([
      {
        topic: "orders",
        partition: 0,
        targetTopic: "east.orders",
        sourceConnector: "mm2-source",
        sourceLogStart: 0n,
        sourceLogEnd: 100n,
        mm2Position: 90n,
        committedPosition: 89n,
        positionSource: "offset-sync",
        targetLogEnd: 90n,
        lag: 10n,
        offsetLag: 10n,
        lagBasis: "offsets",
        transactionMarkersSeen: false,
        targetDensityIssue: null,
        sourceLeaderEpoch: 3,
        sourceTopicId: "Xy3-topic-id",
        latestSync: { upstream: 80n, downstream: 80n },
        unknown: null,
        lagSeconds: 2.5,
      },
      {
        topic: "orders",
        partition: 1,
        targetTopic: "east.orders",
        sourceConnector: "mm2-source",
        sourceLogStart: 0n,
        sourceLogEnd: 100n,
        mm2Position: null,
        committedPosition: null,
        positionSource: null,
        targetLogEnd: 90n,
        lag: null,
        offsetLag: 10n,
        lagBasis: "offsets",
        transactionMarkersSeen: false,
        targetDensityIssue: null,
        sourceLeaderEpoch: 3,
        sourceTopicId: "Xy3-topic-id",
        latestSync: null,
        unknown: null,
        lagSeconds: null,
      },
    ]);
  });
});

describe("summarizeFlow", () => {
  it("copies the totals and counts the task states of the flow's connectors on its Connect cluster", () => {
    const flow = makeFlow({ totals: { topics: 2, partitions: 6, lag: 1234n, unknownPositions: 1 }, errors: ["offsets topic unreadable"] });
    const snapshot = makeSnapshot({
      connect: [
        makeConnect("connect-1", [
          makeConnector("mm2-source", [makeTask(0, "RUNNING"), makeTask(1, "FAILED"), makeTask(2, "RUNNING")]),
          makeConnector("mm2-checkpoint", [makeTask(0, "PAUSED")]),
          makeConnector("unrelated", [makeTask(0, "FAILED")]),
        ]),
        makeConnect("connect-2", [makeConnector("mm2-source", [makeTask(0, "UNASSIGNED")])]),
      ],
      flows: [flow],
    });
    expect(summarizeFlow(snapshot, flow)).toEqual({
      id: "east->west",
      source: "east",
      target: "west",
      discoveredFrom: "connect",
      mode: "MM2: Connect cluster connect-1",
      connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: null },
      connectorNames: ["mm2-source", "mm2-checkpoint"],
      taskStatesKnown: true,
      sourceNotRunning: false,
      topics: 2,
      partitions: 6,
      lag: 1234n,
      unknownPositions: 1,
      partial: null,
      heartbeatLatencyMs: 1500,
      tasks: { RUNNING: 2, FAILED: 1, PAUSED: 1 },
      errors: ["offsets topic unreadable"],
      warnings: [],
      excludedTopics: [],
      settingNotes: [],
    });
  });

  it("carries the flow's config warnings and the topics that left it, as the collector gives them", () => {
    const warning = {
      kind: "topic-filter" as const,
      connector: "mm2-source",
      subject: "com.acme.RegexTopicFilter",
      message: "source connector mm2-source uses custom topic.filter.class com.acme.RegexTopicFilter: Gapwatch cannot evaluate it",
    };
    const excluded = { topic: "payments", reason: "excluded by topics.exclude", heldPositions: 3 };
    const flow = makeFlow({ warnings: [warning], excludedTopics: [excluded] });
    const summary = summarizeFlow(makeSnapshot({ flows: [flow] }), flow);
    expect([summary.warnings, summary.excludedTopics]).toEqual([[warning], [excluded]]);
  });

  it("has no task counts for a dedicated-mode flow without a Connect cluster", () => {
    const flow = makeFlow({
      discoveredFrom: "dedicated-topics",
      connectors: { connectCluster: null, source: null, sources: [], checkpoint: null, heartbeat: null },
      heartbeat: { latestTimestamp: null, latencyMs: null },
    });
    const snapshot = makeSnapshot({ connect: [makeConnect("connect-1", [makeConnector("mm2-source", [makeTask(0, "RUNNING")])])], flows: [flow] });
    const summary = summarizeFlow(snapshot, flow);
    expect([summary.tasks, summary.heartbeatLatencyMs, summary.discoveredFrom]).toEqual([{}, null, "dedicated-topics"]);
    expect([summary.mode, summary.connectorNames, summary.taskStatesKnown]).toEqual(["MM2: dedicated mode (connect-mirror-maker)", [], false]);
  });

  it("counts a dedicated-mode flow's tasks from its status topic, known only once that topic was read completely", () => {
    const source = { ...makeConnector("MirrorSourceConnector", [makeTask(0, "RUNNING")]), state: "UNASSIGNED" };
    const heartbeat = { ...makeConnector("MirrorHeartbeatConnector", [makeTask(0, "UNASSIGNED")]), connectorClass: "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector" };
    const read = { topic: "mm2-status.east.internal", connectors: [heartbeat, source], error: null };
    const flow = makeFlow({
      discoveredFrom: "dedicated-topics",
      connectors: { connectCluster: null, source: null, sources: [], checkpoint: null, heartbeat: null },
      dedicatedStatus: read,
    });
    const summary = summarizeFlow(makeSnapshot({ flows: [flow] }), flow);
    // As a graceful stop leaves it: the connector UNASSIGNED, its task's same-generation UNASSIGNED ignored.
    expect([summary.mode, summary.connectorNames, summary.tasks, summary.taskStatesKnown, summary.sourceNotRunning]).toEqual([
      "MM2: dedicated mode (connect-mirror-maker)",
      ["MirrorHeartbeatConnector", "MirrorSourceConnector"],
      { UNASSIGNED: 1, RUNNING: 1 },
      true,
      true,
    ]);
    const unread = makeFlow({ ...flow, dedicatedStatus: { ...read, error: "MM2 task states from west/mm2-status.east.internal: no such topic" } });
    const unknown = summarizeFlow(makeSnapshot({ flows: [unread] }), unread);
    expect([unknown.taskStatesKnown, unknown.sourceNotRunning]).toEqual([false, false]);
  });

  it("has no task counts when the flow's Connect cluster is missing from the snapshot", () => {
    const flow = makeFlow();
    expect(summarizeFlow(makeSnapshot({ flows: [flow] }), flow).tasks).toEqual({});
  });
});

describe("partial flows", () => {
  const brokerDown = "west east.orders/1: ListOffsets: broker 2: connect ECONNREFUSED";
  const flow = makeFlow({
    partitions: [
      makePartition({ partition: 0 }),
      makePartition({ partition: 1, targetLogEnd: null, unknown: { reason: brokerDown, dataAt: T0 - 30_000 } }),
      makePartition({ topic: "payments", partition: 0, unknown: { reason: "MM2's positions: GET /connectors/mm2-source/offsets: HTTP 500", dataAt: T0 - 10_000 } }),
    ],
  });

  it("says how many partitions are unknown, why, and how old their last good data is", () => {
    expect(summarizeFlow(makeSnapshot({ flows: [flow] }), flow).partial).toEqual({
      unknownPartitions: 2,
      reasons: [brokerDown, "MM2's positions: GET /connectors/mm2-source/offsets: HTTP 500"],
      moreReasons: 0,
      dataAgeMs: 30_000,
    });
    expect(listTopicRows(flow, T0).map((r) => [r.topic, r.unknownPartitions])).toEqual([
      ["orders", 1],
      ["payments", 1],
    ]);
    expect(listPartitionRows(flow, T0)[1]?.unknown).toEqual({ reason: brokerDown, dataAt: T0 - 30_000 });
  });

  it("lists the first reasons and counts the rest; a partition never read has no data age", () => {
    const many = makeFlow({
      partitions: [0, 1, 2, 3, 4].map((partition) => makePartition({ partition, unknown: { reason: `west east.orders/${partition}: ListOffsets: NOT_LEADER_OR_FOLLOWER`, dataAt: partition === 4 ? null : T0 } })),
    });
    expect(summarizeFlow(makeSnapshot({ flows: [many] }), many).partial).toEqual({
      unknownPartitions: 5,
      reasons: [0, 1, 2].map((p) => `west east.orders/${p}: ListOffsets: NOT_LEADER_OR_FOLLOWER`),
      moreReasons: 2,
      dataAgeMs: null,
    });
  });
});

describe("listFlowSummaries", () => {
  it("summarizes every flow of the snapshot in order", () => {
    const flows = [makeFlow(), makeFlow({ id: "west->east", source: "west", target: "east" })];
    expect(listFlowSummaries(makeSnapshot({ flows })).map((s) => [s.id, s.source, s.target])).toEqual([
      ["east->west", "east", "west"],
      ["west->east", "west", "east"],
    ]);
  });
});

describe("describeSettingNotes", () => {
  it("names each MM2 setting that changes what the flow's figures mean, and nothing with MM2's defaults", () => {
    const flow = makeFlow();
    expect(describeSettingNotes({ ...flow, sourceTaskSettings: { offsetSyncsEnabled: true, autoOffsetReset: "earliest" } })).toEqual([]);
    const notes = describeSettingNotes({ ...flow, sourceTaskSettings: { offsetSyncsEnabled: false, autoOffsetReset: "latest" } });
    expect(notes.map((n) => `${n.setting}=${n.value}`)).toEqual(["emit.offset-syncs.enabled=false", "consumer.auto.offset.reset=latest"]);
    expect(notes[0]?.meaning).toMatch(/^offset translation off by MM2's configuration: /);
    expect(notes[1]?.meaning).toContain("skipped on purpose");
  });

  it("names the source connectors a setting applies to when only some of a split flow's have it", () => {
    const defaults = { offsetSyncsEnabled: true, autoOffsetReset: "earliest" };
    const flow = { ...makeFlow(), sourceTaskSettings: defaults };
    const split = { "mm2-a": defaults, "mm2-b": { offsetSyncsEnabled: true, autoOffsetReset: "latest" } };
    expect(describeSettingNotes({ ...flow, sourceSettingsByConnector: split }).map((n) => n.meaning)).toEqual([
      "source connector mm2-b only: MM2 starts new partitions, and recovers from a position below the log start, at the log end: " +
        "records it jumps over are skipped on purpose",
    ]);
  });
});
