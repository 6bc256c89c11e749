import { describe, expect, it } from "vitest";
import { selectConnectSnapshot } from "@/lib/collector/connect-poll";
import { createConnectTopicsState, readConnectTopics } from "@/lib/collector/connect-topics";
import { createFlowTailState } from "@/lib/collector/flow-readings";
import type { ConnectConfig } from "@/lib/config";
import type { FetchResult } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeTopic } from "./fixtures";

/**
 * Connect's three topics on west, with records as a distributed worker writes them through its internal JsonConverter
 * (schemas disabled): the source connector FAILED on task 1 with a trace, paused by target state, and its positions.
 */
const source = "mm2-east-west-source";
const sourceConfig = '{"properties":{"connector.class":"org.apache.kafka.connect.mirror.MirrorSourceConnector","source.cluster.alias":"east",' +
  '"target.cluster.alias":"west","topics":".*","tasks.max":"2","name":"mm2-east-west-source"}}';
const trace = "org.apache.kafka.connect.errors.ConnectException: Tolerance exceeded in error handler\n\tat x.y(Z.java:1)\n" +
  "Caused by: org.apache.kafka.connect.errors.DataException: Unexpected type in Cast transformation: BYTES\n\tat a.b(C.java:2)\n";
const configRecords: [string, string | null][] = [
  ["session-key", '{"key":"a8iGBq/kXjizmkwxV8QyD5ZdifMV4lasNexp4ghPFTc=","algorithm":"HmacSHA256","creation-timestamp":1796164879995}'],
  [`connector-${source}`, sourceConfig],
  [`task-${source}-0`, '{"properties":{"task.assigned.partitions":"orders-0","name":"mm2-east-west-source"}}'],
  [`task-${source}-1`, '{"properties":{"task.assigned.partitions":"orders-1","name":"mm2-east-west-source"}}'],
  [`commit-${source}`, '{"tasks":2}'],
  [`target-state-${source}`, '{"state":"PAUSED","state.v2":"PAUSED"}'],
  ["connector-gone", '{"properties":{"connector.class":"org.apache.kafka.connect.mirror.MirrorHeartbeatConnector","name":"gone"}}'],
  ["connector-gone", null],
];
const statusRecords: [string, string | null][] = [
  [`status-connector-${source}`, '{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:8083","generation":2}'],
  [`status-task-${source}-0`, '{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:8083","generation":2}'],
  [`status-task-${source}-1`, '{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:8083","generation":2}'],
  [`status-task-${source}-1`, `{"state":"FAILED","trace":${JSON.stringify(trace)},"worker_id":"127.0.0.1:8083","generation":2}`],
  [`status-topic-orders:connector-${source}`, '{"topic":{"name":"orders","connector":"mm2-east-west-source","task":0,"discoverTimestamp":1796164879995}}'],
];
const offsetRecords: [string, string | null][] = [
  [`["${source}",{"cluster":"east","partition":0,"topic":"orders"}]`, '{"offset":41}'],
  [`["${source}",{"cluster":"east","partition":1,"topic":"orders"}]`, '{"offset":9007199254740993}'],
  [`["${source}",{"cluster":"east","partition":2,"topic":"orders"}]`, '{"offset":7}'],
  [`["${source}",{"cluster":"east","partition":2,"topic":"orders"}]`, null],
  ['["mm2-east-west-checkpoint",{"group":"billing","partition":0,"topic":"orders"}]', '{"offset":0}'],
];

function answerOf(records: [string, string | null][]): FetchResult {
  return {
    records: records.map(([key, value], offset) => ({ offset: BigInt(offset), timestamp: 0, key: Buffer.from(key), value: value === null ? null : Buffer.from(value), headers: [] })),
    highWatermark: BigInt(records.length),
    logStartOffset: 0n,
    nextOffset: BigInt(records.length),
    controlBatches: 0,
  };
}

const config: ConnectConfig = {
  name: "mm2",
  timeoutMs: 5000,
  internalTopics: { cluster: "west", configs: "mm2-configs", offsets: "mm2-offsets", status: "mm2-status" },
};
const west = makeCluster("west", [
  makeTopic("mm2-configs", [{ logStart: 0n, logEnd: BigInt(configRecords.length) }]),
  makeTopic("mm2-status", [{ logStart: 0n, logEnd: BigInt(statusRecords.length) }]),
  makeTopic("mm2-offsets", [{ logStart: 0n, logEnd: BigInt(offsetRecords.length) }]),
]);
const answers = { "mm2-configs/0": answerOf(configRecords), "mm2-status/0": answerOf(statusRecords), "mm2-offsets/0": answerOf(offsetRecords) };

function readWith(answered: Record<string, FetchResult>, state = createConnectTopicsState(), tails = createFlowTailState(), cluster = west) {
  const ctx = { readers: new Map([["west", createFetchReader("west", answered)]]), clusters: new Map([["west", cluster]]), state: tails };
  return readConnectTopics(config, state, ctx, 1000);
}

describe("readConnectTopics", () => {
  it("shows the connectors the config topic holds with their status-topic states, target states and positions", async () => {
    const { read, error } = await readWith(answers);
    expect(error).toBeNull();
    expect(read?.connectors).toEqual([
      {
        name: source,
        type: "source",
        connectorClass: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        state: "RUNNING",
        workerId: "127.0.0.1:8083",
        trace: null,
        rootCause: null,
        tasks: [
          { id: 0, state: "RUNNING", workerId: "127.0.0.1:8083", trace: null, rootCause: null },
          { id: 1, state: "FAILED", workerId: "127.0.0.1:8083", trace, rootCause: "org.apache.kafka.connect.errors.DataException: Unexpected type in Cast transformation: BYTES" },
        ],
        config: JSON.parse(sourceConfig).properties,
        targetState: "PAUSED",
      },
    ]);
    expect(read?.readAt).toBe(1000);
    expect(read?.positions.get(source)?.map((p) => [p.topic, p.partition, p.offset])).toEqual([["orders", 0, 41n], ["orders", 1, 9007199254740993n]]);
    expect(read?.positions.has("mm2-east-west-checkpoint")).toBe(false);
  });

  it("knows nothing until every topic was read to its end, then keeps the last complete read with this cycle's error", async () => {
    const state = createConnectTopicsState();
    const tails = createFlowTailState();
    const first = await readWith({ ...answers, "mm2-status/0": { error: "NOT_LEADER_OR_FOLLOWER" } }, state, tails);
    expect(first.read).toBeNull();
    expect(first.error).toBe("Connect's internal topics west/{mm2-configs,mm2-status,mm2-offsets}: reading west/mm2-status/0: NOT_LEADER_OR_FOLLOWER; mm2-status/0 not read to its end");
    const second = await readWith(answers, state, tails);
    expect(second.error).toBeNull();
    expect(second.read?.connectors[0]?.tasks.map((t) => t.state)).toEqual(["RUNNING", "FAILED"]);
    const unreachable = await readWith(answers, state, tails, { ...west, reachable: false });
    expect(unreachable.read).toBe(second.read);
    expect(unreachable.error).toContain("west was not read this cycle");
  });

  it("names a configured topic the cluster does not have", async () => {
    const { read, error } = await readWith(answers, createConnectTopicsState(), createFlowTailState(), { ...west, topics: west.topics.slice(0, 2) });
    expect(read).toBeNull();
    expect(error).toContain("no topic mm2-offsets on west");
  });
});

describe("selectConnectSnapshot", () => {
  const connectors = [{ name: "x", type: "source", connectorClass: "c", state: "RUNNING", workerId: "w", trace: null, rootCause: null, tasks: [], config: {} }];
  const topicsRead = { read: { connectors, readAt: 900, positions: new Map() }, error: null };

  it("uses REST when it answers, even with internal topics configured", () => {
    const snapshot = selectConnectSnapshot({ ...config, url: "http://connect:8083" }, { ok: true, connectors: [] }, topicsRead, null, 1000);
    expect(snapshot).toMatchObject({ url: "http://connect:8083", source: "rest", restError: null, reachable: true, dataAt: 1000, connectors: [] });
  });

  it("falls back to the internal topics when REST fails, saying why REST was not used", () => {
    const snapshot = selectConnectSnapshot({ ...config, url: "http://connect:8083" }, { ok: false, error: "ECONNREFUSED" }, topicsRead, null, 1000);
    expect(snapshot).toMatchObject({ source: "internal-topics", restError: "ECONNREFUSED", reachable: true, error: null, dataAt: 900, connectors });
    expect(snapshot.internalTopics).toEqual(config.internalTopics);
  });

  it("reads the topics only when no url is configured, and is unreachable until a complete read", () => {
    const none = selectConnectSnapshot(config, null, { read: null, error: "mm2-status/0 not read to its end" }, null, 1000);
    expect(none).toMatchObject({ url: null, source: "internal-topics", reachable: false, error: "mm2-status/0 not read to its end", dataAt: null, connectors: [] });
    expect(none.restError).toContain("no url configured");
  });

  it("without internal topics, a REST failure keeps the previous connectors with their age", () => {
    const previous = selectConnectSnapshot({ name: "mm2", url: "http://connect:8083", timeoutMs: 5000 }, { ok: true, connectors }, null, null, 500);
    const failed = selectConnectSnapshot({ name: "mm2", url: "http://connect:8083", timeoutMs: 5000 }, { ok: false, error: "timeout" }, null, previous, 1000);
    expect(failed).toMatchObject({ source: "rest", reachable: false, error: "timeout", dataAt: 500, connectors });
  });
});
