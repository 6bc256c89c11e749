import { describe, expect, it } from "vitest";
import { discoverFlows, type FlowDefinition, formatFlowId } from "@/lib/collector/flow-discovery";
import type { Connector } from "@/lib/connect/types";

const MM2 = "org.apache.kafka.connect.mirror.";

/** A RUNNING connector with the given class and config (aliases east -> west unless overridden). */
function makeConnector(name: string, connectorClass: string, config: Record<string, string> = {}): Connector {
  return {
    name,
    type: "source",
    connectorClass,
    state: "RUNNING",
    workerId: "connect-1:8083",
    trace: null,
    rootCause: null,
    tasks: [],
    config: {
      "connector.class": connectorClass,
      "source.cluster.alias": "east",
      "target.cluster.alias": "west",
      ...config,
    },
  };
}

/** The serializable fields of a definition (policy by kind and separator, filters by their settings). */
function describeDef(def: FlowDefinition) {
  const { policy, topicFilters, ...rest } = def;
  return { ...rest, policy: { kind: policy.kind, separator: policy.separator }, topicFilters: topicFilters.map(describeFilter) };
}

function describeFilter({ connector, spec }: FlowDefinition["topicFilters"][number]) {
  return spec.kind === "default" ? { connector, topics: spec.topics, topicsExclude: spec.topicsExclude } : { connector, unknown: spec.reason };
}

const noClusters: { alias: string; topicNames: string[] }[] = [];

describe("formatFlowId", () => {
  it("joins the aliases with an arrow", () => {
    expect(formatFlowId("east", "west")).toBe("east->west");
  });
});

describe("discoverFlows from Connect", () => {
  it("defines a flow from a MirrorSourceConnector with the default policy and topic names", () => {
    const flows = discoverFlows([{ name: "connect-1", connectors: [makeConnector("mm2-source", `${MM2}MirrorSourceConnector`)] }], noClusters);
    expect(flows.map(describeDef)).toEqual([
      {
        id: "east->west",
        source: "east",
        target: "west",
        discoveredFrom: "connect",
        connectCluster: "connect-1",
        connectors: { source: "mm2-source", sources: ["mm2-source"], checkpoint: null, heartbeat: null },
        policy: { kind: "default", separator: "." },
        topicsFilter: ".*",
        topicFilters: [{ connector: "mm2-source", topics: ".*", topicsExclude: ".*[\\-\\.]internal, .*\\.replica, __.*" }],
        groupsFilter: ".*",
        groupsExclude: "console-consumer-.*, connect-.*, __.*",
        checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
        warnings: [],
        offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
        checkpointsTopic: "east.checkpoints.internal",
        heartbeatsTopic: "east.heartbeats",
        positionsTopic: null,
      },
    ]);
  });

  it("recognises connector classes given by their short names", () => {
    const flows = discoverFlows(
      [
        {
          name: "connect-1",
          connectors: [
            makeConnector("src", "MirrorSourceConnector"),
            makeConnector("cp", "MirrorCheckpointConnector"),
            makeConnector("hb", "MirrorHeartbeatConnector"),
          ],
        },
      ],
      noClusters,
    );
    expect(flows.map((f) => f.connectors)).toEqual([{ source: "src", sources: ["src"], checkpoint: "cp", heartbeat: "hb" }]);
  });

  it("joins checkpoint and heartbeat connectors to the flow with the same aliases and takes the checkpoint's groups filter", () => {
    const flows = discoverFlows(
      [
        {
          name: "connect-1",
          connectors: [
            makeConnector("mm2-checkpoint", `${MM2}MirrorCheckpointConnector`, { groups: "payments-.*" }),
            makeConnector("mm2-heartbeat", `${MM2}MirrorHeartbeatConnector`),
            makeConnector("mm2-source", `${MM2}MirrorSourceConnector`, { topics: "orders|payments" }),
            makeConnector("other-checkpoint", `${MM2}MirrorCheckpointConnector`, { "source.cluster.alias": "north" }),
          ],
        },
      ],
      noClusters,
    );
    expect(flows).toHaveLength(1);
    expect(flows[0]?.connectors).toEqual({ source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" });
    expect(flows[0]?.topicsFilter).toBe("orders|payments");
    expect(flows[0]?.groupsFilter).toBe("payments-.*");
  });

  it("joins a checkpoint connector that runs on another Connect cluster", () => {
    const flows = discoverFlows(
      [
        { name: "connect-a", connectors: [makeConnector("mm2-source", "MirrorSourceConnector")] },
        { name: "connect-b", connectors: [makeConnector("mm2-checkpoint", "MirrorCheckpointConnector")] },
      ],
      noClusters,
    );
    expect(flows.map((f) => [f.connectCluster, f.connectors.checkpoint])).toEqual([["connect-a", "mm2-checkpoint"]]);
  });

  it("keeps the first checkpoint connector when two match the same flow", () => {
    const flows = discoverFlows(
      [
        {
          name: "connect-1",
          connectors: [
            makeConnector("mm2-source", "MirrorSourceConnector"),
            makeConnector("cp-1", "MirrorCheckpointConnector"),
            makeConnector("cp-2", "MirrorCheckpointConnector"),
          ],
        },
      ],
      noClusters,
    );
    expect(flows[0]?.connectors.checkpoint).toBe("cp-1");
  });

  it("ignores checkpoint and heartbeat connectors without a source connector for their flow", () => {
    const flows = discoverFlows(
      [{ name: "connect-1", connectors: [makeConnector("cp", "MirrorCheckpointConnector"), makeConnector("hb", "MirrorHeartbeatConnector")] }],
      noClusters,
    );
    expect(flows).toEqual([]);
  });

  it("ignores connectors that are not MirrorMaker 2 connectors", () => {
    const flows = discoverFlows(
      [
        {
          name: "connect-1",
          connectors: [
            makeConnector("jdbc", "io.confluent.connect.jdbc.JdbcSourceConnector"),
            makeConnector("fake", "com.example.NotAMirrorSourceConnector"),
          ],
        },
      ],
      noClusters,
    );
    expect(flows).toEqual([]);
  });

  it("skips a source connector that names no target alias", () => {
    const connector = makeConnector("mm2-source", "MirrorSourceConnector");
    delete connector.config["target.cluster.alias"];
    expect(discoverFlows([{ name: "connect-1", connectors: [connector] }], noClusters)).toEqual([]);
  });

  it("uses IdentityReplicationPolicy given by its full class name", () => {
    const flows = discoverFlows(
      [{ name: "c", connectors: [makeConnector("s", "MirrorSourceConnector", { "replication.policy.class": `${MM2}IdentityReplicationPolicy` })] }],
      noClusters,
    );
    const def = flows[0]!;
    expect(def.policy.kind).toBe("identity");
    expect(def.policy.formatRemoteTopic("east", "orders")).toBe("orders");
    expect([def.offsetSyncs, def.checkpointsTopic, def.heartbeatsTopic]).toEqual([
      { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
      "east.checkpoints.internal",
      "east.heartbeats",
    ]);
  });

  it("uses DefaultReplicationPolicy for any other policy class", () => {
    const flows = discoverFlows(
      [{ name: "c", connectors: [makeConnector("s", "MirrorSourceConnector", { "replication.policy.class": `${MM2}DefaultReplicationPolicy` })] }],
      noClusters,
    );
    expect(flows[0]?.policy.kind).toBe("default");
    expect(flows[0]?.policy.formatRemoteTopic("east", "orders")).toBe("east.orders");
  });

  it("names every topic with a custom separator", () => {
    const flows = discoverFlows(
      [{ name: "c", connectors: [makeConnector("s", "MirrorSourceConnector", { "replication.policy.separator": "_" })] }],
      noClusters,
    );
    const def = flows[0]!;
    expect(def.policy.separator).toBe("_");
    expect(def.policy.formatRemoteTopic("east", "orders")).toBe("east_orders");
    expect([def.offsetSyncs, def.checkpointsTopic, def.heartbeatsTopic]).toEqual([
      { cluster: "east", topic: "mm2-offset-syncs_west_internal" },
      "east_checkpoints_internal",
      "east_heartbeats",
    ]);
  });

  it("names the heartbeats topic with the separator under IdentityReplicationPolicy too", () => {
    const flows = discoverFlows(
      [
        {
          name: "c",
          connectors: [makeConnector("s", "MirrorSourceConnector", { "replication.policy.class": "IdentityReplicationPolicy", "replication.policy.separator": "_" })],
        },
      ],
      noClusters,
    );
    expect([flows[0]?.policy.kind, flows[0]?.heartbeatsTopic, flows[0]?.checkpointsTopic]).toEqual(["identity", "east_heartbeats", "east_checkpoints_internal"]);
  });

  it("puts the offset-syncs topic on the target, named after the source, when offset-syncs.topic.location=target", () => {
    const flows = discoverFlows(
      [{ name: "c", connectors: [makeConnector("s", "MirrorSourceConnector", { "offset-syncs.topic.location": "target" })] }],
      noClusters,
    );
    expect(flows[0]?.offsetSyncs).toEqual({ cluster: "west", topic: "mm2-offset-syncs.east.internal" });
  });

  it("treats any other offset-syncs.topic.location as the source", () => {
    const flows = discoverFlows(
      [{ name: "c", connectors: [makeConnector("s", "MirrorSourceConnector", { "offset-syncs.topic.location": "TARGET" })] }],
      noClusters,
    );
    expect(flows[0]?.offsetSyncs).toEqual({ cluster: "east", topic: "mm2-offset-syncs.west.internal" });
  });

  it("keeps the first source connector of a flow that is defined twice", () => {
    const flows = discoverFlows(
      [
        { name: "connect-a", connectors: [makeConnector("first", "MirrorSourceConnector", { topics: "a" })] },
        { name: "connect-b", connectors: [makeConnector("second", "MirrorSourceConnector", { topics: "b" })] },
      ],
      noClusters,
    );
    expect(flows.map((f) => [f.connectCluster, f.connectors.source, f.topicsFilter])).toEqual([["connect-a", "first", "a"]]);
  });

  it("returns flows sorted by id", () => {
    const flows = discoverFlows(
      [
        {
          name: "c",
          connectors: [
            makeConnector("w-e", "MirrorSourceConnector", { "source.cluster.alias": "west", "target.cluster.alias": "east" }),
            makeConnector("e-w", "MirrorSourceConnector"),
          ],
        },
      ],
      noClusters,
    );
    expect(flows.map((f) => f.id)).toEqual(["east->west", "west->east"]);
  });
});

describe("discoverFlows in dedicated mode", () => {
  it("finds a flow from the mm2-offsets.<source>.internal topic on the target cluster", () => {
    const flows = discoverFlows([], [
      { alias: "east", topicNames: ["orders", "mm2-offset-syncs.west.internal"] },
      { alias: "west", topicNames: ["east.orders", "mm2-offsets.east.internal", "mm2-status.east.internal", "east.checkpoints.internal"] },
    ]);
    expect(flows.map(describeDef)).toEqual([
      {
        id: "east->west",
        source: "east",
        target: "west",
        discoveredFrom: "dedicated-topics",
        connectCluster: null,
        connectors: { source: null, sources: [], checkpoint: null, heartbeat: null },
        policy: { kind: "default", separator: "." },
        topicsFilter: ".*",
        topicFilters: [],
        groupsFilter: ".*",
        groupsExclude: "console-consumer-.*, connect-.*, __.*",
        checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
        warnings: [],
        offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
        checkpointsTopic: "east.checkpoints.internal",
        heartbeatsTopic: "east.heartbeats",
        positionsTopic: "mm2-offsets.east.internal",
      },
    ]);
  });

  it("ignores an offsets topic named after an alias that is not a configured cluster", () => {
    expect(discoverFlows([], [{ alias: "west", topicNames: ["mm2-offsets.north.internal"] }])).toEqual([]);
  });

  it("ignores an offsets topic named after the cluster itself", () => {
    expect(discoverFlows([], [{ alias: "east", topicNames: [] }, { alias: "west", topicNames: ["mm2-offsets.west.internal"] }])).toEqual([]);
  });

  it("finds both directions of a bidirectional dedicated deployment", () => {
    const flows = discoverFlows([], [
      { alias: "east", topicNames: ["mm2-offsets.west.internal"] },
      { alias: "west", topicNames: ["mm2-offsets.east.internal"] },
    ]);
    expect(flows.map((f) => [f.id, f.positionsTopic])).toEqual([
      ["east->west", "mm2-offsets.east.internal"],
      ["west->east", "mm2-offsets.west.internal"],
    ]);
  });

  it("does not add a dedicated-mode flow when Connect already defines it", () => {
    const flows = discoverFlows(
      [{ name: "connect-1", connectors: [makeConnector("mm2-source", "MirrorSourceConnector")] }],
      [
        { alias: "east", topicNames: [] },
        { alias: "west", topicNames: ["mm2-offsets.east.internal"] },
      ],
    );
    expect(flows.map((f) => [f.id, f.discoveredFrom, f.positionsTopic])).toEqual([["east->west", "connect", null]]);
  });
});
