import { describe, expect, it } from "vitest";
import { type DedicatedConfigs, discoverFlows, type FlowDefinition, formatFlowId } from "@/lib/collector/flow-discovery";
import type { Connector } from "@/lib/connect/types";
import { applyConnectorConfigRecord, decodeAll, decodeConnectorConfig } from "@/lib/mm2";
import { type CapturedRecord, eastToWestConfigRecords, westToEastConfigRecords } from "../mm2/helpers/dedicated-config-records";

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
  it("reads the MirrorSourceConnector's emit.offset-syncs.enabled and its consumer's auto.offset.reset", () => {
    const config = { "emit.offset-syncs.enabled": "false", "source.consumer.auto.offset.reset": "latest" };
    const flows = discoverFlows([{ name: "connect-1", connectors: [makeConnector("mm2-source", `${MM2}MirrorSourceConnector`, config)] }], noClusters);
    expect(flows.map((f) => f.sourceTaskSettings)).toEqual([{ offsetSyncsEnabled: false, autoOffsetReset: "latest" }]);
  });

  it("keeps the longest topic refresh of a flow's source connectors; one with refresh off lengthens nothing", () => {
    const source = (name: string, config: Record<string, string>) => makeConnector(name, `${MM2}MirrorSourceConnector`, { ...config, topics: name });
    const flows = discoverFlows([{ name: "connect-1", connectors: [
      source("mm2-a", { "refresh.topics.interval.seconds": "20" }),
      source("mm2-b", { "refresh.topics.interval.seconds": "3600" }),
      source("mm2-c", { "refresh.topics.enabled": "false" }),
    ] }], noClusters);
    expect(flows.map((f) => [f.connectors.sources, f.topicRefreshMs])).toEqual([[["mm2-a", "mm2-b", "mm2-c"], 3_600_000]]);
  });

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
        configReadError: null,
        sourceTaskSettings: { offsetSyncsEnabled: true, autoOffsetReset: "earliest" },
        topicRefreshMs: 600_000,
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
    // sync.group.offsets.enabled is off by default (MirrorCheckpointConfig).
    expect(flows[0]?.syncGroupOffsets).toBe(false);
  });

  it("reads the checkpoint connector's sync.group.offsets.enabled", () => {
    const connectors = [
      makeConnector("mm2-source", `${MM2}MirrorSourceConnector`),
      makeConnector("mm2-checkpoint", `${MM2}MirrorCheckpointConnector`, { "sync.group.offsets.enabled": "true" }),
    ];
    expect(discoverFlows([{ name: "connect-1", connectors }], noClusters).map((f) => f.syncGroupOffsets)).toEqual([true]);
    expect(discoverFlows([{ name: "connect-1", connectors: connectors.slice(0, 1) }], noClusters).map((f) => f.syncGroupOffsets)).toEqual([undefined]);
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

describe("discoverFlows in dedicated mode, MM2's configs not read", () => {
  it("finds a flow from the mm2-offsets.<source>.internal topic on the target cluster, saying its configs are unknown", () => {
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
        configReadError: "MM2 connector configs from west/mm2-configs.east.internal not read",
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

/** A pair's configs as a complete read of its config topic leaves them (dedicated-configs.ts). */
function readConfigs(source: string, records: readonly CapturedRecord[], error: string | null = null): DedicatedConfigs {
  const connectors = new Map<string, Record<string, string>>();
  const decoded = decodeAll(
    records.map((r) => ({ key: Buffer.from(r.key), value: Buffer.from(r.value) })),
    decodeConnectorConfig,
  );
  for (const r of decoded.decoded) applyConnectorConfigRecord(connectors, r);
  return { topic: `mm2-configs.${source}.internal`, connectors, error };
}

/** The captured east->west records with the MirrorSourceConnector's properties changed (`null` removes one). */
function withSourceConfig(changes: Record<string, string | null>): CapturedRecord[] {
  return eastToWestConfigRecords.map((r) => {
    if (r.key !== "connector-MirrorSourceConnector") return r;
    const { properties } = JSON.parse(r.value) as { properties: Record<string, string> };
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) delete properties[k];
      else properties[k] = v;
    }
    return { ...r, value: JSON.stringify({ properties }) };
  });
}

/** Both directions' herders ran (MM2's default: the disabled west->east pair still emits heartbeats). */
const bothHerders = [
  { alias: "east", topicNames: ["orders", "heartbeats", "mm2-offsets.west.internal", "mm2-configs.west.internal", "mm2-offset-syncs.west.internal"] },
  { alias: "west", topicNames: ["east.orders", "east.heartbeats", "mm2-offsets.east.internal", "mm2-configs.east.internal"] },
];

/** Only the east->west herder ran. */
const oneHerder = [{ alias: "east", topicNames: ["orders"] }, bothHerders[1]!];

describe("discoverFlows in dedicated mode, from MM2's config topics", () => {
  it("finds only the enabled direction: the heartbeat-only west->east herder's MirrorSourceConnector is disabled", () => {
    const dedicated = new Map([
      ["east->west", readConfigs("east", eastToWestConfigRecords)],
      ["west->east", readConfigs("west", westToEastConfigRecords)],
    ]);
    const flows = discoverFlows([], bothHerders, {}, dedicated);
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
        topicFilters: [{ connector: "MirrorSourceConnector", topics: ".*", topicsExclude: ".*[\\-\\.]internal, .*\\.replica, __.*" }],
        // The captured checkpoint connector: groups default, emit and refresh every 5 s, target groups' offsets synced.
        groupsFilter: ".*",
        groupsExclude: "console-consumer-.*, connect-.*, __.*",
        checkpointTiming: { emitIntervalMs: 5000, refreshGroupsIntervalMs: 5000 },
        syncGroupOffsets: true,
        warnings: [],
        offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
        checkpointsTopic: "east.checkpoints.internal",
        heartbeatsTopic: "east.heartbeats",
        positionsTopic: "mm2-offsets.east.internal",
        configReadError: null,
        sourceTaskSettings: { offsetSyncsEnabled: true, autoOffsetReset: "earliest" },
        // The captured MM2 refreshes topics every 5 s (refresh.topics.interval.seconds).
        topicRefreshMs: 5000,
      },
    ]);
  });

  it("reads the topic filter, replication policy and offset-syncs location as it does a Connect connector's", () => {
    const records = withSourceConfig({
      topics: "dedicated-.*",
      "topics.exclude": "dedicated-tmp.*",
      "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
      "offset-syncs.topic.location": "target",
    });
    const [flow] = discoverFlows([], oneHerder, {}, new Map([["east->west", readConfigs("east", records)]]));
    expect(describeDef(flow!)).toMatchObject({
      topicsFilter: "dedicated-.*",
      topicFilters: [{ connector: "MirrorSourceConnector", topics: "dedicated-.*", topicsExclude: "dedicated-tmp.*" }],
      policy: { kind: "identity", separator: "." },
      offsetSyncs: { cluster: "west", topic: "mm2-offset-syncs.east.internal" },
      heartbeatsTopic: "east.heartbeats",
      warnings: [],
    });
  });

  it("warns about what it cannot evaluate in the config, naming the connector", () => {
    const records = withSourceConfig({ "topic.filter.class": "com.acme.Filter", "replication.policy.class": "com.acme.Policy" });
    const [flow] = discoverFlows([], oneHerder, {}, new Map([["east->west", readConfigs("east", records)]]));
    expect(flow!.warnings.map((w) => [w.kind, w.connector, w.subject])).toEqual([
      ["replication-policy", "MirrorSourceConnector", "com.acme.Policy"],
      ["topic-filter", "MirrorSourceConnector", "com.acme.Filter"],
    ]);
  });

  it("finds no flow once the MirrorSourceConnector was deleted (tombstone), nor with enabled=false; keeps one whose enabled is invalid (it fails)", () => {
    const deleted = [...eastToWestConfigRecords, { offset: 9, key: "connector-MirrorSourceConnector", value: "" }];
    const tombstoned = readConfigs("east", eastToWestConfigRecords);
    applyConnectorConfigRecord(tombstoned.connectors as Map<string, Record<string, string>>, decodeConnectorConfig(Buffer.from(deleted.at(-1)!.key), null));
    const cases = [tombstoned, readConfigs("east", withSourceConfig({ enabled: "false" })), readConfigs("east", withSourceConfig({ enabled: "yes" })), readConfigs("east", withSourceConfig({ enabled: null }))];
    expect(cases.map((c) => discoverFlows([], oneHerder, {}, new Map([["east->west", c]])).map((f) => f.id))).toEqual([[], [], ["east->west"], ["east->west"]]);
  });

  it("keeps the last complete configs when this cycle's read failed, with the error", () => {
    const configs = readConfigs("east", withSourceConfig({ topics: "dedicated-.*" }), "MM2 connector configs from west/mm2-configs.east.internal: west was not read this cycle");
    const [flow] = discoverFlows([], oneHerder, {}, new Map([["east->west", configs]]));
    expect([flow!.topicsFilter, flow!.configReadError]).toEqual(["dedicated-.*", "MM2 connector configs from west/mm2-configs.east.internal: west was not read this cycle"]);
  });

  it("falls back to the flow without configs while none was read completely, with the reason", () => {
    const unknown = { topic: "mm2-configs.west.internal", connectors: null, error: "MM2 connector configs from east/mm2-configs.west.internal: east was not read this cycle" };
    const flows = discoverFlows([], bothHerders, { "west->east": { replicationPolicy: { kind: "identity" } } }, new Map([["west->east", unknown]]));
    expect(flows.map((f) => [f.id, f.topicsFilter, f.topicFilters.length, f.policy.kind, f.configReadError])).toEqual([
      ["east->west", ".*", 0, "default", "MM2 connector configs from west/mm2-configs.east.internal not read"],
      ["west->east", ".*", 0, "identity", "MM2 connector configs from east/mm2-configs.west.internal: east was not read this cycle"],
    ]);
  });
});
