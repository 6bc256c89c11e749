import { describe, expect, it } from "vitest";
import { defineRetainedFlow, discoverFlows } from "@/lib/collector/flow-discovery";
import { parseRetainedFlows, parseRetireRequests, type RetainedFlow, retainFlows, serializeRetainedFlows } from "@/lib/collector/retained-flows";
import type { ConnectClusterSnapshot } from "@/lib/collector/types";
import type { Connector } from "@/lib/connect/types";

const T = Date.UTC(2026, 11, 6, 3, 0, 0);

const source: Connector = {
  name: "mm2-east-west",
  type: "source",
  connectorClass: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
  state: "RUNNING",
  workerId: "10.0.0.5:8083",
  trace: null,
  rootCause: null,
  tasks: [],
  config: {
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "source.cluster.alias": "east",
    "target.cluster.alias": "west",
    topics: "orders.*",
    "source.cluster.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"s3cret\";",
  },
};

function connectWith(connectors: Connector[], reachable = true): ConnectClusterSnapshot[] {
  return [{ name: "connect-1", url: "http://connect-1:8083", reachable, error: reachable ? null : "ECONNREFUSED", dataAt: T, connectors }];
}

const none = { requests: new Map<string, number>(), byConfig: new Set<string>() };

/** Runs retention over cycles 10 s apart, threading the records, as the collector does. */
function runRetention(cycles: { connect: ConnectClusterSnapshot[]; retired?: typeof none }[], start = new Map<string, RetainedFlow>()) {
  let retained: ReadonlyMap<string, RetainedFlow> = start;
  return cycles.map(({ connect, retired }, i) => {
    const now = T + i * 10_000;
    const live = discoverFlows(connect, []);
    const result = retainFlows(live, connect, retained, retired ?? none, now, (r) => defineRetainedFlow(r));
    retained = result.retained;
    return { live: live.map((d) => d.id), kept: result.definitions.map((d) => ({ id: d.id, missing: d.connectorMissing ?? null })), retained: result.retained };
  });
}

describe("retainFlows", () => {
  it("keeps a flow whose source connector was deleted, marked missing since the first cycle Connect answered without it", () => {
    const steps = runRetention([{ connect: connectWith([source]) }, { connect: connectWith([]) }, { connect: connectWith([]) }]);
    expect(steps.map((s) => s.kept)).toEqual([
      [],
      [{ id: "east->west", missing: { connectors: ["mm2-east-west"], since: T + 10_000 } }],
      [{ id: "east->west", missing: { connectors: ["mm2-east-west"], since: T + 10_000 } }],
    ]);
  });

  it("keeps the flow without saying missing while Connect does not answer (unknown is not missing)", () => {
    const steps = runRetention([{ connect: connectWith([source]) }, { connect: connectWith([], false) }, { connect: connectWith([]) }]);
    expect(steps.map((s) => s.kept)).toEqual([
      [],
      [{ id: "east->west", missing: null }],
      [{ id: "east->west", missing: { connectors: ["mm2-east-west"], since: T + 20_000 } }],
    ]);
  });

  it("rebuilds the flow as found (topic filter, offset-syncs topic), keeping no secret of the connector config", () => {
    const [first, second] = runRetention([{ connect: connectWith([source]) }, { connect: connectWith([]) }]);
    expect(first?.retained.get("east->west")?.sourceConfig).toEqual({
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      "source.cluster.alias": "east",
      "target.cluster.alias": "west",
      topics: "orders.*",
    });
    expect(serializeRetainedFlows(first!.retained)).not.toContain("s3cret");
    const shape = (d: ReturnType<typeof defineRetainedFlow>) =>
      d && { connectors: d.connectors, policy: d.policy.kind, topicsFilter: d.topicsFilter, filters: d.topicFilters.map((f) => f.spec.kind), offsetSyncs: d.offsetSyncs, checkpointsTopic: d.checkpointsTopic };
    const found = discoverFlows(connectWith([source]), [])[0] ?? null;
    expect(shape(defineRetainedFlow(second!.retained.get("east->west")!))).toEqual(shape(found));
    expect(shape(found)).toMatchObject({ topicsFilter: "orders.*", offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" } });
  });

  it("survives a restart through the store", () => {
    const [first] = runRetention([{ connect: connectWith([source]) }]);
    const restored = parseRetainedFlows(serializeRetainedFlows(first!.retained));
    expect(restored.error).toBeNull();
    const [after] = runRetention([{ connect: connectWith([]) }], restored.flows);
    expect(after?.kept.map((k) => k.id)).toEqual(["east->west"]);
  });

  it("drops a flow retired after it was last found, or by the config, and watches it again once re-created", () => {
    const retireAt = T + 15_000;
    const requests = { requests: parseRetireRequests(JSON.stringify({ "east->west": retireAt })), byConfig: new Set<string>() };
    const steps = runRetention([
      { connect: connectWith([source]) },
      { connect: connectWith([]) },
      { connect: connectWith([]), retired: requests },
      { connect: connectWith([source]), retired: requests },
      { connect: connectWith([]), retired: requests },
    ]);
    expect(steps.map((s) => [s.live, s.kept.map((k) => k.id)])).toEqual([
      [["east->west"], []],
      [[], ["east->west"]],
      [[], []],
      [["east->west"], []],
      // Re-created after the retirement, then deleted again: kept and missing again.
      [[], ["east->west"]],
    ]);
    const byConfig = runRetention([{ connect: connectWith([source]) }, { connect: connectWith([]), retired: { requests: new Map(), byConfig: new Set(["east->west"]) } }]);
    expect(byConfig[1]?.kept).toEqual([]);
  });

  it("reads unreadable stored values as nothing, with the reason", () => {
    expect(parseRetainedFlows("{oops").error).not.toBeNull();
    expect(parseRetireRequests("[1]").size).toBe(0);
  });
});
