import { describe, expect, it } from "vitest";
import { addKeptSourceConnector, defineRetainedFlow, discoverFlows, type FlowDefinition } from "@/lib/collector/flow-discovery";
import { createFlowTailState, readFlow, type ConnectTopicPositions } from "@/lib/collector/flow-readings";
import { fingerprintRetainedFlows, type RetainedFlow, retainFlows, serializeRetainedFlows } from "@/lib/collector/retained-flows";
import type { ConnectClusterSnapshot } from "@/lib/collector/types";
import type { Connector, MirrorSourceOffset } from "@/lib/connect/types";
import { makeCluster, makeTopic, T0 } from "./fixtures";

const MM2 = "org.apache.kafka.connect.mirror.";

function makeSource(name: string, config: Record<string, string>): Connector {
  return {
    name,
    type: "source",
    connectorClass: `${MM2}MirrorSourceConnector`,
    state: "RUNNING",
    workerId: "w:8083",
    trace: null,
    rootCause: null,
    tasks: [],
    config: { "connector.class": `${MM2}MirrorSourceConnector`, "source.cluster.alias": "east", "target.cluster.alias": "west", ...config },
  };
}

const eastTopics = [{ alias: "east", topicNames: ["orders", "payments", "shared", "heartbeats"] }];

describe("discoverFlows: source connectors of one alias pair", () => {
  it("on two Connect clusters form one flow, each connector read on its own cluster", () => {
    const flows = discoverFlows(
      [
        { name: "connect-1", connectors: [makeSource("mm2-a", { topics: "orders" })] },
        { name: "connect-2", connectors: [makeSource("mm2-b", { topics: "payments", "consumer.auto.offset.reset": "latest" })] },
      ],
      eastTopics,
    );
    expect(flows.map((f) => [f.id, f.connectCluster, f.connectors.sources, f.connectors.sourceClusters, f.warnings])).toEqual([
      ["east->west", "connect-1", ["mm2-a", "mm2-b"], { "mm2-a": "connect-1", "mm2-b": "connect-2" }, []],
    ]);
    expect(flows[0]!.sourceSettingsByConnector).toEqual({
      "mm2-a": { offsetSyncsEnabled: true, autoOffsetReset: "earliest" },
      "mm2-b": { offsetSyncsEnabled: true, autoOffsetReset: "latest" },
    });
  });

  it("warns once per pair of connectors whose filters both take a topic (heartbeats left out), naming the topics", () => {
    const flows = discoverFlows([{ name: "connect-1", connectors: [makeSource("mm2-a", { topics: "orders|shared" }), makeSource("mm2-b", { topics: "payments|shared" })] }], eastTopics);
    expect(flows[0]!.warnings).toEqual([
      {
        kind: "topic-overlap",
        connector: "mm2-a + mm2-b",
        subject: "mm2-a + mm2-b",
        topics: ["shared"],
        message:
          "source connectors mm2-a and mm2-b both take shared: each copies every record into the same remote topic " +
          "(the target holds them twice) and both write its offset syncs (translation of its groups is unreliable); " +
          "narrow one connector's topics or topics.exclude",
      },
    ]);
  });

  it("reads a connector name found on two Connect clusters on the first, with a warning", () => {
    const flows = discoverFlows(
      [
        { name: "connect-1", connectors: [makeSource("mm2-a", { topics: "orders" })] },
        { name: "connect-2", connectors: [makeSource("mm2-a", { topics: "payments" })] },
      ],
      eastTopics,
    );
    expect(flows[0]!.connectors.sources).toEqual(["mm2-a"]);
    expect(flows[0]!.warnings.map((w) => [w.kind, w.connector, w.subject])).toEqual([["connector-name", "mm2-a", "connect-2"]]);
  });
});

/** A flow over mm2-a and mm2-b on connect-1 with these topic filters. */
function defineSplit(topicsOfA: string, topicsOfB: string): FlowDefinition {
  return discoverFlows([{ name: "connect-1", connectors: [makeSource("mm2-a", { topics: topicsOfA }), makeSource("mm2-b", { topics: topicsOfB })] }], [])[0]!;
}

const offset = (topic: string, o: number): MirrorSourceOffset => ({ cluster: "east", topic, partition: 0, offset: BigInt(o) });
const east = makeCluster("east", [makeTopic("orders", [{ partition: 0, logStart: 0n, logEnd: 50n }])]);

/** One collector cycle's readings of the split flow, Connect's offsets given per connector (null: not read). */
async function readCycle(def: FlowDefinition, state: ReturnType<typeof createFlowTailState>, now: number, held: Record<string, MirrorSourceOffset[]> | null) {
  const positions: ConnectTopicPositions = { positions: held === null ? null : new Map(Object.entries(held)), error: held === null ? "not read" : null };
  const readings = await readFlow(def, { readers: new Map(), clusters: new Map([["east", east]]), connect: [], connectTopicPositions: new Map([["connect-1", positions]]), state, now });
  const unread = readings.failures.positionsErrorsByConnector;
  return { position: readings.positions?.get("orders/0") ?? null, copier: readings.copiers?.get("orders/0") ?? null, ...(unread ? { unread } : {}) };
}

describe("readFlow: each partition credited to the connector MM2 copies it with", () => {
  it("follows a topic moved from mm2-a's filter to mm2-b's: mm2-b's own offsets only, and the change kept", async () => {
    const state = createFlowTailState();
    const before = defineSplit("orders", "payments");
    const after = defineSplit("payments", "orders");
    const cycles = [
      await readCycle(before, state, T0, { "mm2-a": [offset("orders", 49)] }),
      // Connect keeps mm2-a's offsets; mm2-b holds none yet: no position (not mm2-a's stale 49).
      await readCycle(after, state, T0 + 10_000, { "mm2-a": [offset("orders", 49)] }),
      await readCycle(after, state, T0 + 20_000, { "mm2-a": [offset("orders", 49)], "mm2-b": [offset("orders", 19)] }),
    ];
    const change = { from: "mm2-a", fromPosition: 50n, logStartAtChange: 0n, logEndAtChange: 50n, at: T0 + 10_000 };
    expect(cycles).toEqual([
      { position: 49n, copier: { connector: "mm2-a", offsets: new Map([["mm2-a", 49n]]), change: null } },
      { position: null, copier: { connector: "mm2-b", offsets: new Map([["mm2-a", 49n]]), change } },
      { position: 19n, copier: { connector: "mm2-b", offsets: new Map([["mm2-a", 49n], ["mm2-b", 19n]]), change } },
    ]);
  });

  it("sees a move made in two steps (out of mm2-a's filter, a cycle, then into mm2-b's) as a move from mm2-a", async () => {
    const state = createFlowTailState();
    const held = { "mm2-a": [offset("orders", 49)] };
    await readCycle(defineSplit("orders", "payments"), state, T0, held);
    const between = await readCycle(defineSplit("payments", "payments"), state, T0 + 10_000, held);
    const after = await readCycle(defineSplit("payments", "orders"), state, T0 + 20_000, held);
    expect(between).toEqual({ position: null, copier: null });
    expect(after.copier?.change).toEqual({ from: "mm2-a", fromPosition: 50n, logStartAtChange: 0n, logEndAtChange: 50n, at: T0 + 20_000 });
  });

  it("credits an overlapped topic to the connector whose offsets move, and keeps offsets not read this cycle", async () => {
    const state = createFlowTailState();
    const def = defineSplit("orders", "orders");
    const cycles = [
      await readCycle(def, state, T0, { "mm2-a": [offset("orders", 10)], "mm2-b": [offset("orders", 30)] }),
      await readCycle(def, state, T0 + 10_000, { "mm2-a": [offset("orders", 40)], "mm2-b": [offset("orders", 30)] }),
      await readCycle(def, state, T0 + 20_000, null),
    ];
    expect(cycles.map((c) => [c.position, c.copier?.connector, c.copier?.change ?? null, c.unread ?? null])).toEqual([
      // No earlier cycle: the most advanced.
      [30n, "mm2-b", null, null],
      // mm2-a moved, mm2-b did not: mm2-a copies it (no move: mm2-b still takes the topic).
      [40n, "mm2-a", null, null],
      // Connect's offsets not read: the last ones are kept, and each connector's partitions are unknown for why.
      [
        40n,
        "mm2-a",
        null,
        new Map([
          ["mm2-a", "MM2 positions of mm2-a from Connect's offsets topic (connect-1): not read"],
          ["mm2-b", "MM2 positions of mm2-b from Connect's offsets topic (connect-1): not read"],
        ]),
      ],
    ]);
  });
});

describe("retainFlows: one connector of a split flow deleted", () => {
  const connect = (connectors: Connector[], reachable = true): ConnectClusterSnapshot[] => [
    { name: "connect-1", url: "http://connect-1:8083", reachable, error: reachable ? null : "ECONNREFUSED", dataAt: T0, connectors },
  ];
  const a = makeSource("mm2-a", { topics: "orders", "sasl.jaas.config": "secret" });
  const b = makeSource("mm2-b", { topics: "payments" });

  function run(cycles: { connect: ConnectClusterSnapshot[]; requests?: Map<string, number> }[]) {
    let retained: ReadonlyMap<string, RetainedFlow> = new Map();
    return cycles.map(({ connect: c, requests }, i) => {
      const live = discoverFlows(c, []);
      const result = retainFlows(live, c, retained, { requests: requests ?? new Map(), byConfig: new Set() }, T0 + i * 10_000, (r) => defineRetainedFlow(r), addKeptSourceConnector);
      retained = result.retained;
      return result;
    });
  }

  it("keeps the deleted connector in the flow with its filter, missing since the first cycle Connect answered without it", () => {
    const steps = run([{ connect: connect([a, b]) }, { connect: connect([b], false) }, { connect: connect([b]) }, { connect: connect([b]) }]);
    expect(steps.map((s) => s.live.map((d) => [d.connectors.sources, d.topicFilters.map((f) => f.connector), d.connectorMissing ?? null]))).toEqual([
      [[["mm2-a", "mm2-b"], ["mm2-a", "mm2-b"], null]],
      // Connect did not answer: unknown, not missing (the connector stays, its filter too).
      [[["mm2-b", "mm2-a"], ["mm2-b", "mm2-a"], null]],
      [[["mm2-b", "mm2-a"], ["mm2-b", "mm2-a"], { connectors: ["mm2-a"], since: T0 + 20_000 }]],
      [[["mm2-b", "mm2-a"], ["mm2-b", "mm2-a"], { connectors: ["mm2-a"], since: T0 + 20_000 }]],
    ]);
    expect(steps[3]!.definitions).toEqual([]);
    expect(JSON.stringify([...steps[3]!.retained.values()])).not.toContain("secret");
  });

  it("gives two cycles that changed only the time the flows were found one fingerprint (written at most once a minute)", () => {
    const steps = run([{ connect: connect([a, b]) }, { connect: connect([a, b]) }, { connect: connect([b]) }]);
    const [first, second, third] = steps.map((s) => s.retained);
    expect(serializeRetainedFlows(first!)).not.toBe(serializeRetainedFlows(second!));
    expect(fingerprintRetainedFlows(first!)).toBe(fingerprintRetainedFlows(second!));
    expect(fingerprintRetainedFlows(third!)).not.toBe(fingerprintRetainedFlows(second!));
  });

  it("drops it once an operator retires the flow after it went missing, and forgets it when re-created", () => {
    const retire = new Map([["east->west", T0 + 25_000]]);
    const steps = run([{ connect: connect([a, b]) }, { connect: connect([b]) }, { connect: connect([b]), requests: retire }, { connect: connect([b]), requests: retire }]);
    expect(steps.map((s) => s.live[0]!.connectors.sources)).toEqual([["mm2-a", "mm2-b"], ["mm2-b", "mm2-a"], ["mm2-b"], ["mm2-b"]]);
    const recreated = run([{ connect: connect([a, b]) }, { connect: connect([b]) }, { connect: connect([a, b]) }]);
    expect(recreated.map((s) => s.live[0]!.connectorMissing ?? null)).toEqual([null, { connectors: ["mm2-a"], since: T0 + 10_000 }, null]);
  });
});
