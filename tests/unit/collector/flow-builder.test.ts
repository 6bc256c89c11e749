import { describe, expect, it } from "vitest";
import { buildFlow, derivePosition } from "@/lib/collector/flow-builder";
import { type CheckpointPoint, flowPartitionKey } from "@/lib/collector/types";
import { createIdentityReplicationPolicy, readTopicFilter, type SyncPoint } from "@/lib/mm2";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";

const FLOW = "east->west";

/** Sync history for `orders`/0 of east->west. */
function syncsFor(topic: string, partition: number, points: [bigint, bigint][]): Map<string, readonly SyncPoint[]> {
  return new Map([[flowPartitionKey(FLOW, topic, partition), points.map(([upstream, downstream]) => ({ upstream, downstream }))]]);
}

describe("derivePosition", () => {
  it("adds the records written to the target after the newest sync to its upstream offset", () => {
    expect(derivePosition({ upstream: 387n, downstream: 387n }, 389n, 389n)).toBe(389n);
    expect(derivePosition({ upstream: 1000n, downstream: 400n }, 450n, 2000n)).toBe(1050n);
  });

  it("returns null without a sync or without either log end", () => {
    expect(derivePosition(null, 10n, 10n)).toBeNull();
    expect(derivePosition({ upstream: 5n, downstream: 5n }, null, 10n)).toBeNull();
    expect(derivePosition({ upstream: 5n, downstream: 5n }, 10n, null)).toBeNull();
  });

  it("returns null when the target log end is not past the sync's downstream offset", () => {
    expect(derivePosition({ upstream: 387n, downstream: 387n }, 387n, 389n)).toBeNull();
    expect(derivePosition({ upstream: 387n, downstream: 387n }, 100n, 389n)).toBeNull();
  });

  it("accepts a position equal to the source log end and rejects one past it", () => {
    expect(derivePosition({ upstream: 10n, downstream: 0n }, 5n, 15n)).toBe(15n);
    expect(derivePosition({ upstream: 10n, downstream: 0n }, 6n, 15n)).toBeNull();
  });
});

describe("buildFlow: which topics belong to the flow", () => {
  it("includes a source topic whose remote topic exists on the target", () => {
    const source = makeCluster("east", [makeTopic("orders")]);
    const target = makeCluster("west", [makeTopic("east.orders")]);
    const flow = buildFlow(makeDefinition(), source, target, makeReadings(), T0);
    expect(flow.partitions.map((p) => [p.topic, p.partition, p.targetTopic])).toEqual([["orders", 0, "east.orders"]]);
  });

  it("includes a source topic MM2's filter takes even before its remote topic exists, naming the connector copying it", () => {
    const source = makeCluster("east", [makeTopic("payments", [{ logEnd: 50n }])]);
    const flow = buildFlow(makeDefinition(), source, makeCluster("west"), makeReadings({ positions: new Map([["payments/0", 9n]]) }), T0);
    expect(flow.partitions).toEqual([
      {
        topic: "payments",
        partition: 0,
        targetTopic: "east.payments",
        sourceConnector: "mm2-source",
        sourceTopicId: "id-payments",
        sourceLogStart: 0n,
        sourceLogEnd: 50n,
        sourceLeaderEpoch: 0,
        mm2Position: 10n,
        committedPosition: 10n,
        positionSource: "committed",
        targetLogStart: null,
        targetLogEnd: null,
        lag: 40n,
        offsetLag: 40n,
        lagBasis: "offsets",
        transactionMarkersSeen: false,
        targetDensityIssue: null,
        latestSync: null,
        oldestUnreplicatedTimestamp: null,
        unknown: null,
      },
    ]);
  });

  it("with a filter it cannot evaluate, leaves out topics neither mirrored nor positioned, internal ones and __consumer_offsets", () => {
    const source = makeCluster("east", [
      makeTopic("audit"),
      makeTopic("mm2-offset-syncs.west.internal"),
      makeTopic("__consumer_offsets"),
      makeTopic("orders"),
    ]);
    const target = makeCluster("west", [makeTopic("east.orders"), makeTopic("__consumer_offsets"), makeTopic("mm2-offsets.east.internal")]);
    const def = makeDefinition({ topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ "topic.filter.class": "com.acme.Filter" }) }] });
    const flow = buildFlow(def, source, target, makeReadings(), T0);
    expect([...new Set(flow.partitions.map((p) => p.topic))]).toEqual(["orders"]);
  });

  it("includes the source's heartbeats topic, which MM2 replicates as <source>.heartbeats", () => {
    const source = makeCluster("east", [makeTopic("heartbeats")]);
    const target = makeCluster("west", [makeTopic("east.heartbeats")]);
    expect(buildFlow(makeDefinition(), source, target, makeReadings(), T0).partitions.map((p) => p.targetTopic)).toEqual(["east.heartbeats"]);
  });

  it("matches topics by their unchanged names under IdentityReplicationPolicy", () => {
    const def = makeDefinition({ policy: createIdentityReplicationPolicy({ sourceClusterAlias: "east" }), topicsFilter: "orders" });
    const source = makeCluster("east", [makeTopic("orders"), makeTopic("audit"), makeTopic("__consumer_offsets")]);
    const target = makeCluster("west", [makeTopic("orders"), makeTopic("__consumer_offsets")]);
    const filtered = makeDefinition({ ...def, topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ topics: "orders" }) }] });
    expect(buildFlow(filtered, source, target, makeReadings(), T0).partitions.map((p) => [p.topic, p.targetTopic])).toEqual([["orders", "orders"]]);
  });

  // Regression (was a bug in lib/collector/flow-builder.ts, buildFlow, the `replicated` check): under IdentityReplicationPolicy
  // formatRemoteTopic("east", "__consumer_offsets") is "__consumer_offsets", which exists on every target,
  // so Kafka's internal topic joins the flow with an unknown position. Internal topics must be excluded.
  it("excludes __consumer_offsets under IdentityReplicationPolicy even though the same name exists on the target", () => {
    const def = makeDefinition({ policy: createIdentityReplicationPolicy({ sourceClusterAlias: "east" }) });
    const source = makeCluster("east", [makeTopic("__consumer_offsets", [{ logStart: 0n, logEnd: 120n }]), makeTopic("orders")]);
    const target = makeCluster("west", [makeTopic("__consumer_offsets"), makeTopic("orders")]);
    const flow = buildFlow(def, source, target, makeReadings({ positions: new Map([["orders/0", 999n]]) }), T0);
    expect(flow.partitions.map((p) => p.topic)).toEqual(["orders"]);
    expect(flow.totals.unknownPositions).toBe(0);
  });

  it("has no partitions when the source cluster snapshot is missing", () => {
    const flow = buildFlow(makeDefinition(), undefined, makeCluster("west", [makeTopic("east.orders")]), makeReadings({ positions: new Map([["orders/0", 1n]]) }), T0);
    expect(flow.partitions).toEqual([]);
    expect(flow.totals).toEqual({ topics: 0, partitions: 0, lag: 0n, unknownPositions: 0 });
  });

  it("sorts partitions by topic, then by partition number", () => {
    const source = makeCluster("east", [makeTopic("payments", [{}, {}]), makeTopic("orders", [{}, {}, {}])]);
    const target = makeCluster("west", [makeTopic("east.payments", [{}, {}]), makeTopic("east.orders", [{}, {}, {}])]);
    const source2 = { ...source, topics: source.topics.map((t) => ({ ...t, partitions: [...t.partitions].reverse() })) };
    const flow = buildFlow(makeDefinition(), source2, target, makeReadings(), T0);
    expect(flow.partitions.map((p) => `${p.topic}/${p.partition}`)).toEqual(["orders/0", "orders/1", "orders/2", "payments/0", "payments/1"]);
  });
});

describe("buildFlow: positions and lag", () => {
  const source = (partition: { logStart?: bigint | null; logEnd?: bigint | null }) => makeCluster("east", [makeTopic("orders", [partition])]);
  const target = (logEnd: bigint | null) => makeCluster("west", [makeTopic("east.orders", [{ logStart: 0n, logEnd }])]);

  it("computes lag as source log end minus the committed position (last replicated offset + 1)", () => {
    const flow = buildFlow(makeDefinition(), source({ logEnd: 1000n }), target(900n), makeReadings({ positions: new Map([["orders/0", 899n]]) }), T0);
    const p = flow.partitions[0]!;
    expect([p.committedPosition, p.mm2Position, p.positionSource, p.lag, p.targetLogStart, p.targetLogEnd]).toEqual([900n, 900n, "committed", 100n, 0n, 900n]);
  });

  it("never reports a negative lag when the source log end is below MM2's position", () => {
    const flow = buildFlow(makeDefinition(), source({ logStart: 0n, logEnd: 10n }), target(900n), makeReadings({ positions: new Map([["orders/0", 899n]]) }), T0);
    expect(flow.partitions[0]?.lag).toBe(0n);
  });

  it("leaves records deleted below the log start out of the lag: they are lost, not waiting", () => {
    // MM2 stopped at 900; retention then removed everything below 1,200; the log ends at 1,500.
    const flow = buildFlow(makeDefinition(), source({ logStart: 1200n, logEnd: 1500n }), target(900n), makeReadings({ positions: new Map([["orders/0", 899n]]) }), T0);
    expect([flow.partitions[0]?.mm2Position, flow.partitions[0]?.lag]).toEqual([900n, 300n]);
  });

  it("reports lag 0 for an empty partition MM2 never touched", () => {
    const flow = buildFlow(makeDefinition(), source({ logStart: 42n, logEnd: 42n }), target(0n), makeReadings(), T0);
    expect([flow.partitions[0]?.mm2Position, flow.partitions[0]?.positionSource, flow.partitions[0]?.lag]).toEqual([null, null, 0n]);
    expect(flow.totals.unknownPositions).toBe(0);
  });

  it("reports an unknown lag when the position is unknown and the partition holds records, and counts it", () => {
    const flow = buildFlow(makeDefinition(), source({ logStart: 0n, logEnd: 500n }), target(0n), makeReadings(), T0);
    expect(flow.partitions[0]?.lag).toBeNull();
    expect(flow.totals).toEqual({ topics: 1, partitions: 1, lag: 0n, unknownPositions: 1 });
  });

  it("reports an unknown lag when the source log end could not be read, even with a position", () => {
    const flow = buildFlow(makeDefinition(), source({ logStart: null, logEnd: null }), target(10n), makeReadings({ positions: new Map([["orders/0", 9n]]) }), T0);
    expect([flow.partitions[0]?.mm2Position, flow.partitions[0]?.lag, flow.totals.unknownPositions]).toEqual([10n, null, 1]);
  });

  it("reports an unknown lag when the log start is unknown and there is no position", () => {
    const flow = buildFlow(makeDefinition(), source({ logStart: null, logEnd: 0n }), target(0n), makeReadings(), T0);
    expect(flow.partitions[0]?.lag).toBeNull();
  });

  it("takes the offset-sync position when it is ahead of the committed one", () => {
    const flow = buildFlow(
      makeDefinition(),
      source({ logEnd: 389n }),
      target(389n),
      makeReadings({ positions: new Map([["orders/0", 387n]]), syncHistory: syncsFor("orders", 0, [[100n, 100n], [387n, 387n]]) }),
      T0,
    );
    const p = flow.partitions[0]!;
    expect([p.committedPosition, p.mm2Position, p.positionSource, p.lag, p.latestSync]).toEqual([
      388n,
      389n,
      "offset-sync",
      0n,
      { upstream: 387n, downstream: 387n },
    ]);
  });

  it("takes the offset-sync position when Connect has committed nothing yet", () => {
    const flow = buildFlow(makeDefinition(), source({ logEnd: 500n }), target(50n), makeReadings({ syncHistory: syncsFor("orders", 0, [[400n, 40n]]) }), T0);
    const p = flow.partitions[0]!;
    expect([p.committedPosition, p.mm2Position, p.positionSource, p.lag]).toEqual([null, 410n, "offset-sync", 90n]);
  });

  it("keeps the committed position when the offset-sync one is not larger", () => {
    const flow = buildFlow(
      makeDefinition(),
      source({ logEnd: 1000n }),
      target(391n),
      makeReadings({ positions: new Map([["orders/0", 390n]]), syncHistory: syncsFor("orders", 0, [[387n, 387n]]) }),
      T0,
    );
    const p = flow.partitions[0]!;
    expect([p.mm2Position, p.positionSource, p.lag]).toEqual([391n, "committed", 609n]);
  });

  it("ignores the offset-sync position when it would pass the source log end", () => {
    const flow = buildFlow(
      makeDefinition(),
      source({ logEnd: 100n }),
      target(5000n),
      makeReadings({ positions: new Map([["orders/0", 89n]]), syncHistory: syncsFor("orders", 0, [[50n, 50n]]) }),
      T0,
    );
    const p = flow.partitions[0]!;
    expect([p.mm2Position, p.positionSource, p.lag, p.latestSync]).toEqual([90n, "committed", 10n, { upstream: 50n, downstream: 50n }]);
  });

  it("ignores the offset-sync position when the target log end is not past the sync", () => {
    const flow = buildFlow(makeDefinition(), source({ logEnd: 389n }), target(387n), makeReadings({ syncHistory: syncsFor("orders", 0, [[387n, 387n]]) }), T0);
    expect([flow.partitions[0]?.mm2Position, flow.partitions[0]?.positionSource, flow.partitions[0]?.lag]).toEqual([null, null, null]);
  });

  it("reads sync history only under this flow's partition key", () => {
    const other = new Map([[flowPartitionKey("west->east", "orders", 0), [{ upstream: 387n, downstream: 387n }]]]);
    const flow = buildFlow(makeDefinition(), source({ logEnd: 389n }), target(389n), makeReadings({ syncHistory: other }), T0);
    expect(flow.partitions[0]?.latestSync).toBeNull();
  });

  it("sums lag and counts topics, partitions and unknown positions in the totals", () => {
    const src = makeCluster("east", [makeTopic("orders", [{ logEnd: 100n }, { logEnd: 200n }]), makeTopic("payments", [{ logEnd: 30n }])]);
    const tgt = makeCluster("west", [makeTopic("east.orders", [{}, {}]), makeTopic("east.payments")]);
    const positions = new Map([["orders/0", 89n], ["orders/1", 149n]]);
    const flow = buildFlow(makeDefinition(), src, tgt, makeReadings({ positions }), T0);
    expect(flow.partitions.map((p) => p.lag)).toEqual([10n, 50n, null]);
    expect(flow.totals).toEqual({ topics: 2, partitions: 3, lag: 60n, unknownPositions: 1 });
  });
});

describe("buildFlow: flow fields", () => {
  it("copies the definition, checkpoints and errors and computes heartbeat latency from now", () => {
    const checkpoint: CheckpointPoint = { group: "billing", topic: "orders", partition: 0, upstream: 10n, downstream: 8n, at: T0 - 1000 };
    const flow = buildFlow(
      makeDefinition(),
      makeCluster("east"),
      makeCluster("west"),
      makeReadings({ checkpoints: [checkpoint], latestHeartbeat: T0 - 2500, errors: ["offsets topic unreadable"] }),
      T0,
    );
    expect({ ...flow, partitions: undefined }).toEqual({
      id: "east->west",
      source: "east",
      target: "west",
      discoveredFrom: "connect",
      connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" },
      replicationPolicy: { kind: "default", separator: "." },
      topicsFilter: ".*",
      groupsFilter: ".*",
      groupsExclude: "console-consumer-.*, connect-.*, __.*",
      checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
      warnings: [],
      excludedTopics: [],
      offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
      checkpointsTopic: "east.checkpoints.internal",
      partitions: undefined,
      checkpoints: [checkpoint],
      heartbeat: { latestTimestamp: T0 - 2500, latencyMs: 2500 },
      totals: { topics: 0, partitions: 0, lag: 0n, unknownPositions: 0 },
      errors: ["offsets topic unreadable"],
      coverage: { filterKnown: true, matchedByFilter: 0, unmatched: [], missingOnTarget: [], partitionsMissingOnTarget: [], targetKnown: true },
    });
  });

  it("clamps heartbeat latency at 0 when the heartbeat is stamped after now (clock skew)", () => {
    const flow = buildFlow(makeDefinition(), makeCluster("east"), makeCluster("west"), makeReadings({ latestHeartbeat: T0 + 700 }), T0);
    expect(flow.heartbeat).toEqual({ latestTimestamp: T0 + 700, latencyMs: 0 });
  });

  it("reports no heartbeat latency when no heartbeat was read", () => {
    expect(buildFlow(makeDefinition(), makeCluster("east"), makeCluster("west"), makeReadings(), T0).heartbeat).toEqual({ latestTimestamp: null, latencyMs: null });
  });
});
