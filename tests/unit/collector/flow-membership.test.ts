import { describe, expect, it } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { discoverFlows } from "@/lib/collector/flow-discovery";
import type { Connector } from "@/lib/connect/types";
import { makeCluster, makeReadings, makeTopic, T0 } from "./fixtures";

const MIRROR = "org.apache.kafka.connect.mirror.";

/** A RUNNING MM2 connector east -> west with the given class and config. */
function makeConnector(name: string, kind: "Source" | "Checkpoint", config: Record<string, string> = {}): Connector {
  const connectorClass = `${MIRROR}Mirror${kind}Connector`;
  return {
    name,
    type: "source",
    connectorClass,
    state: "RUNNING",
    workerId: "connect-1:8083",
    trace: null,
    rootCause: null,
    tasks: [],
    config: { "connector.class": connectorClass, "source.cluster.alias": "east", "target.cluster.alias": "west", ...config },
  };
}

function discover(connectors: Connector[], overrides: Parameters<typeof discoverFlows>[2] = {}) {
  return discoverFlows([{ name: "connect-1", connectors }], [], overrides);
}

/** east: orders (6 partitions), payments (3), clicks (2), audit (1); west holds every remote topic but east.audit. */
const east = makeCluster("east", [
  makeTopic("orders", Array.from({ length: 6 }, () => ({}))),
  makeTopic("payments", [{}, {}, {}]),
  makeTopic("clicks", [{}, {}]),
  makeTopic("audit"),
]);
const west = makeCluster("west", [makeTopic("east.orders"), makeTopic("east.payments"), makeTopic("east.clicks")]);

describe("flow membership: MM2's topic filter decides, not Connect's offsets", () => {
  it("leaves out a topic added to topics.exclude although Connect still holds MM2's offsets for it, and says why", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { "topics.exclude": "payments, .*[\\-\\.]internal, .*\\.replica, __.*" })]);
    const positions = new Map([["orders/0", 10n], ["payments/0", 20n], ["payments/1", 21n], ["payments/2", 22n]]);
    const flow = buildFlow(def!, east, west, makeReadings({ positions }), T0);
    expect([...new Set(flow.partitions.map((p) => p.topic))]).toEqual(["audit", "clicks", "orders"]);
    expect(flow.excludedTopics).toEqual([{ topic: "payments", reason: "excluded by topics.exclude", heldPositions: 3 }]);
    expect(flow.warnings).toEqual([]);
  });

  it("forms ONE flow from several source connectors of one alias pair; each partition names the connector copying it", () => {
    const flows = discover([
      makeConnector("mm2-source-b", "Source", { topics: "payments|clicks" }),
      makeConnector("mm2-checkpoint", "Checkpoint"),
      makeConnector("mm2-source-a", "Source", { topics: "orders" }),
    ]);
    expect(flows.map((f) => [f.id, f.connectors.source, f.connectors.sources, f.connectors.checkpoint])).toEqual([
      ["east->west", "mm2-source-a", ["mm2-source-a", "mm2-source-b"], "mm2-checkpoint"],
    ]);
    const flow = buildFlow(flows[0]!, east, west, makeReadings(), T0);
    const byTopic = Object.fromEntries(flow.partitions.map((p) => [p.topic, p.sourceConnector]));
    expect(byTopic).toEqual({ clicks: "mm2-source-b", orders: "mm2-source-a", payments: "mm2-source-b" });
    expect(flow.partitions).toHaveLength(11);
    expect(flow.excludedTopics).toEqual([]);
    // audit: taken by neither connector, no positions, no remote topic: simply not part of the flow.
    expect(flow.partitions.some((p) => p.topic === "audit")).toBe(false);
  });

  it("names every connector's reason when several filters leave a replicated topic out", () => {
    const [def] = discover([makeConnector("a", "Source", { topics: "orders" }), makeConnector("b", "Source", { topics: ".*", "topics.exclude": "clicks" })]);
    const flow = buildFlow(def!, east, west, makeReadings(), T0);
    expect(flow.excludedTopics).toEqual([{ topic: "clicks", reason: "a: not matched by topics; b: excluded by topics.exclude", heldPositions: 0 }]);
  });

  it("with a custom topic.filter.class keeps today's rule (positions, or the remote topic exists) and warns naming the class", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { "topic.filter.class": "com.acme.RegexTopicFilter" })]);
    const flow = buildFlow(def!, east, west, makeReadings(), T0);
    expect([...new Set(flow.partitions.map((p) => p.topic))]).toEqual(["clicks", "orders", "payments"]);
    expect(flow.partitions[0]?.sourceConnector).toBe("mm2-source");
    expect(flow.warnings).toEqual([
      {
        kind: "topic-filter",
        connector: "mm2-source",
        subject: "com.acme.RegexTopicFilter",
        message:
          "mm2-source: custom topic.filter.class com.acme.RegexTopicFilter cannot be evaluated by Gapwatch; a topic counts as replicated " +
          "when Connect holds MM2's offsets for it or its remote topic exists on the target",
      },
    ]);
  });
});

describe("replication policy: unknown classes and the config override", () => {
  it("reads an unknown replication.policy.class as the default policy with a warning naming the class", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { "replication.policy.class": "com.acme.PrefixPolicy" })]);
    expect([def?.policy.kind, def?.policy.separator]).toEqual(["default", "."]);
    expect(def?.warnings).toEqual([
      {
        kind: "replication-policy",
        connector: "mm2-source",
        subject: "com.acme.PrefixPolicy",
        message:
          'replication.policy.class com.acme.PrefixPolicy of mm2-source is not one Gapwatch knows: topic names are read as DefaultReplicationPolicy (separator ".") ' +
          'would name them; set flows."east->west".replicationPolicy in the config to say which it behaves like',
      },
    ]);
  });

  it("does not take a class that merely ends like MM2's for MM2's", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { "replication.policy.class": "com.acme.IdentityReplicationPolicy" })]);
    expect([def?.policy.kind, def?.warnings.map((w) => w.subject)]).toEqual(["default", ["com.acme.IdentityReplicationPolicy"]]);
  });

  it("applies flows.<id>.replicationPolicy, with its separator, and drops the warning", () => {
    const overrides = { "east->west": { replicationPolicy: { kind: "identity" as const, separator: "_" } } };
    const [def] = discover([makeConnector("mm2-source", "Source", { "replication.policy.class": "com.acme.PrefixPolicy" })], overrides);
    expect([def?.policy.kind, def?.policy.separator, def?.warnings]).toEqual(["identity", "_", []]);
    const flow = buildFlow(def!, makeCluster("east", [makeTopic("orders")]), makeCluster("west", [makeTopic("orders")]), makeReadings(), T0);
    expect(flow.partitions.map((p) => [p.topic, p.targetTopic])).toEqual([["orders", "orders"]]);
    expect(flow.replicationPolicy).toEqual({ kind: "identity", separator: "_" });
  });

  it("knows MM2's own classes by full or simple name, and warns when a second source connector's policy differs", () => {
    const flows = discover([
      makeConnector("a", "Source", { "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy" }),
      makeConnector("b", "Source", { "replication.policy.class": "DefaultReplicationPolicy" }),
    ]);
    expect(flows[0]?.policy.kind).toBe("identity");
    expect(flows[0]?.warnings.map((w) => [w.kind, w.connector, w.message])).toEqual([
      [
        "replication-policy",
        "b",
        'source connector b uses DefaultReplicationPolicy (separator "."), unlike a (IdentityReplicationPolicy (separator ".")): ' +
          "Gapwatch names all the flow's topics as a does",
      ],
    ]);
  });

  it("does not warn when several source connectors run the same custom policy (one warning for the unknown class)", () => {
    const custom = { "replication.policy.class": "com.acme.PrefixPolicy", "replication.policy.separator": "_" };
    const [def] = discover([makeConnector("a", "Source", custom), makeConnector("b", "Source", custom)]);
    expect(def?.warnings.map((w) => [w.kind, w.connector, w.subject])).toEqual([["replication-policy", "a", "com.acme.PrefixPolicy"]]);
  });
});

describe("checkpoint connector settings on the flow", () => {
  it("reads groups, groups.exclude and the emit and refresh intervals", () => {
    const [def] = discover([
      makeConnector("mm2-source", "Source"),
      makeConnector("mm2-checkpoint", "Checkpoint", {
        groups: "app-.*",
        "groups.exclude": "app-test",
        "emit.checkpoints.interval.seconds": "5",
        "refresh.groups.interval.seconds": "30",
      }),
    ]);
    expect([def?.groupsFilter, def?.groupsExclude, def?.checkpointTiming]).toEqual(["app-.*", "app-test", { emitIntervalMs: 5_000, refreshGroupsIntervalMs: 30_000 }]);
  });
});

describe("IdentityReplicationPolicy: a same-named target topic is no sign MM2 copied it", () => {
  const identity = { "replication.policy.class": "IdentityReplicationPolicy" };
  const source = makeCluster("east", [makeTopic("orders"), makeTopic("ledger"), makeTopic("__consumer_offsets")]);
  // west holds its own `ledger` and `__consumer_offsets`; `orders` is MM2's copy.
  const target = makeCluster("west", [makeTopic("orders"), makeTopic("ledger"), makeTopic("__consumer_offsets")]);

  it("lists no excluded topic for the target's own same-named topics", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { ...identity, topics: "orders" })]);
    const flow = buildFlow(def!, source, target, makeReadings(), T0);
    expect(flow.partitions.map((p) => [p.topic, p.targetTopic])).toEqual([["orders", "orders"]]);
    expect(flow.excludedTopics).toEqual([]);
  });

  it("still lists a left-out topic for which Connect holds MM2's positions", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { ...identity, topics: "orders" })]);
    const flow = buildFlow(def!, source, target, makeReadings({ positions: new Map([["ledger/0", 5n]]) }), T0);
    expect(flow.excludedTopics).toEqual([{ topic: "ledger", reason: "not matched by topics", heldPositions: 1 }]);
  });

  it("with a filter Gapwatch cannot evaluate, counts a topic as copied by Connect's positions only", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { ...identity, "topic.filter.class": "com.acme.RegexTopicFilter" })]);
    const flow = buildFlow(def!, source, target, makeReadings({ positions: new Map([["orders/0", 7n]]) }), T0);
    expect([...new Set(flow.partitions.map((p) => p.topic))]).toEqual(["orders"]);
    expect(flow.warnings.map((w) => w.message)).toEqual([
      "mm2-source: custom topic.filter.class com.acme.RegexTopicFilter cannot be evaluated by Gapwatch; a topic counts as replicated " +
        "when Connect holds MM2's offsets for it",
    ]);
  });

  it("under DefaultReplicationPolicy a renamed remote topic on the target still counts as copied", () => {
    const [def] = discover([makeConnector("mm2-source", "Source", { topics: "orders" })]);
    const flow = buildFlow(def!, source, makeCluster("west", [makeTopic("east.orders"), makeTopic("east.ledger")]), makeReadings(), T0);
    expect(flow.excludedTopics).toEqual([{ topic: "ledger", reason: "not matched by topics", heldPositions: 0 }]);
  });
});
