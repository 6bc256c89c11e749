import { describe, expect, it } from "vitest";
import {
  applyConnectConfigTopicRecord,
  applyStatusRecord,
  type ConnectConfigState,
  createConnectConfigState,
  createStatusTable,
  decodeAll,
  decodeConnectConfigTopicRecord,
  decodeConnectStatus,
  decodeMirrorSourcePosition,
  ForeignRecordError,
  listConnectorStatuses,
  listTaskConfigs,
  MalformedRecordError,
} from "@/lib/mm2";
import { sandboxConfigRecords, sandboxOffsetRecords, sandboxStatusRecords } from "./helpers/connect-cluster-records";

/**
 * Records as a distributed worker's KafkaConfigBackingStore writes them through its internal JsonConverter
 * (schemas disabled: a Struct becomes an object with its fields in schema order, a null optional field `null`).
 */
const source = "mm2-east-west-source";
const connectorValue = '{"properties":{"connector.class":"org.apache.kafka.connect.mirror.MirrorSourceConnector",' +
  '"source.cluster.alias":"east","target.cluster.alias":"west","topics":".*","name":"mm2-east-west-source"}}';
const taskValue = (id: number) => `{"properties":{"task.assigned.partitions":"orders-${id}","task.index":"${id}","name":"mm2-east-west-source"}}`;

const key = (text: string) => Buffer.from(text, "utf8");
const value = (text: string | null) => (text === null ? null : Buffer.from(text, "utf8"));

/** Folds records (key, value text) in order into a fresh state. */
function fold(records: [string, string | null][]): ConnectConfigState {
  const state = createConnectConfigState();
  for (const [k, v] of records) applyConnectConfigTopicRecord(state, decodeConnectConfigTopicRecord(key(k), value(v)));
  return state;
}

describe("decodeConnectConfigTopicRecord", () => {
  it("decodes a connector config, a task config, a task commit and both target-state formats", () => {
    expect(decodeConnectConfigTopicRecord(key(`connector-${source}`), value(connectorValue))).toEqual({
      kind: "connector",
      connector: source,
      config: {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "source.cluster.alias": "east",
        "target.cluster.alias": "west",
        topics: ".*",
        name: source,
      },
    });
    expect(decodeConnectConfigTopicRecord(key(`task-${source}-1`), value(taskValue(1)))).toMatchObject({ kind: "task", connector: source, taskId: 1 });
    expect(decodeConnectConfigTopicRecord(key(`commit-${source}`), value('{"tasks":2}'))).toEqual({ kind: "commit", connector: source, tasks: 2 });
    // TARGET_STATE_V1: "state" falls back to PAUSED for STOPPED (for workers before 3.5), "state.v2" says STOPPED.
    expect(decodeConnectConfigTopicRecord(key(`target-state-${source}`), value('{"state":"PAUSED","state.v2":"STOPPED"}'))).toEqual({
      kind: "target-state",
      connector: source,
      state: "STOPPED",
    });
    expect(decodeConnectConfigTopicRecord(key(`target-state-${source}`), value('{"state":"PAUSED"}'))).toMatchObject({ state: "PAUSED" });
    expect(decodeConnectConfigTopicRecord(key(`target-state-${source}`), value('{"state":"STARTED","state.v2":null}'))).toMatchObject({ state: "STARTED" });
    expect(decodeConnectConfigTopicRecord(key(`target-state-${source}`), null)).toMatchObject({ state: null });
    expect(decodeConnectConfigTopicRecord(key(`connector-${source}`), null)).toEqual({ kind: "connector", connector: source, config: null });
  });

  it("takes the task id after the last dash, so connector names may hold dashes", () => {
    expect(decodeConnectConfigTopicRecord(key("task-a-b-c-12"), value(taskValue(12)))).toMatchObject({ connector: "a-b-c", taskId: 12 });
  });

  it("skips worker bookkeeping as foreign and refuses what Connect would ignore as malformed", () => {
    for (const k of ["session-key", `restart-connector-${source}`, `tasks-fencing-${source}`, "logger-cluster-org.apache.kafka"]) {
      expect(() => decodeConnectConfigTopicRecord(key(k), value("{}"))).toThrow(ForeignRecordError);
    }
    const malformed: [string, string | null][] = [
      ["something-else", "{}"],
      [`connector-${source}`, '"not an object"'],
      [`connector-${source}`, '{"properties":"x"}'],
      [`connector-${source}`, '{"properties":{"tasks.max":1}}'],
      [`task-${source}-0`, null],
      ["task-0", taskValue(0)],
      [`commit-${source}`, '{"tasks":"2"}'],
      [`target-state-${source}`, '{"state":"RUNNING"}'],
      [`connector-${source}`, "{not json"],
    ];
    for (const [k, v] of malformed) {
      const attempt = () => decodeConnectConfigTopicRecord(key(k), value(v));
      expect(attempt).toThrow(MalformedRecordError);
      expect(attempt).not.toThrow(ForeignRecordError);
    }
  });
});

describe("applyConnectConfigTopicRecord (KafkaConfigBackingStore's rules)", () => {
  it("gives a new connector target state STARTED and applies task configs only at their commit", () => {
    const state = fold([
      [`connector-${source}`, connectorValue],
      [`task-${source}-0`, taskValue(0)],
      [`task-${source}-1`, taskValue(1)],
    ]);
    expect(state.targetStates.get(source)).toBe("STARTED");
    expect(listTaskConfigs(state, source)).toBeNull();
    applyConnectConfigTopicRecord(state, decodeConnectConfigTopicRecord(key(`commit-${source}`), value('{"tasks":2}')));
    expect(listTaskConfigs(state, source)?.map((c) => c["task.assigned.partitions"])).toEqual(["orders-0", "orders-1"]);
  });

  it("marks a connector inconsistent when a commit finds task configs missing (compaction), and keeps the old ones", () => {
    const state = fold([
      [`connector-${source}`, connectorValue],
      [`task-${source}-0`, taskValue(0)],
      [`commit-${source}`, '{"tasks":1}'],
      [`task-${source}-1`, taskValue(1)],
      [`commit-${source}`, '{"tasks":2}'],
    ]);
    expect(state.inconsistent.has(source)).toBe(true);
    expect(listTaskConfigs(state, source)).toBeNull();
    expect(state.deferred.get(source)?.size).toBe(0);
  });

  it("pauses, stops and resumes through target-state records; a tombstone returns a configured connector to STARTED", () => {
    const state = fold([
      [`connector-${source}`, connectorValue],
      [`target-state-${source}`, '{"state":"PAUSED","state.v2":"PAUSED"}'],
    ]);
    expect(state.targetStates.get(source)).toBe("PAUSED");
    applyConnectConfigTopicRecord(state, decodeConnectConfigTopicRecord(key(`target-state-${source}`), value('{"state":"PAUSED","state.v2":"STOPPED"}')));
    expect(state.targetStates.get(source)).toBe("STOPPED");
    applyConnectConfigTopicRecord(state, decodeConnectConfigTopicRecord(key(`target-state-${source}`), null));
    expect(state.targetStates.get(source)).toBe("STARTED");
  });

  it("keeps a target state written before the connector's config (KIP-980 initial_state) and does not overwrite it", () => {
    const state = fold([
      [`target-state-${source}`, '{"state":"PAUSED","state.v2":"STOPPED"}'],
      [`connector-${source}`, connectorValue],
    ]);
    expect(state.targetStates.get(source)).toBe("STOPPED");
  });

  it("deletes a connector with its task configs on a tombstone; its target state goes with its own tombstone", () => {
    const state = fold([
      [`connector-${source}`, connectorValue],
      [`task-${source}-0`, taskValue(0)],
      [`commit-${source}`, '{"tasks":1}'],
      [`connector-${source}`, null],
    ]);
    expect(state.connectors.has(source)).toBe(false);
    expect(state.taskConfigs.has(source)).toBe(false);
    expect(listTaskConfigs(state, source)).toBeNull();
    expect(state.targetStates.get(source)).toBe("STARTED");
    applyConnectConfigTopicRecord(state, decodeConnectConfigTopicRecord(key(`target-state-${source}`), null));
    expect(state.targetStates.has(source)).toBe(false);
  });

  it("ignores a commit for a connector without a config (deleted, then compacted) and drops its held task configs", () => {
    const state = fold([
      [`task-${source}-0`, taskValue(0)],
      [`commit-${source}`, '{"tasks":1}'],
    ]);
    expect(state.connectors.size).toBe(0);
    expect(state.deferred.has(source)).toBe(false);
    expect(state.taskCounts.has(source)).toBe(false);
  });

  it("takes the newest config of a connector (latest record per key wins)", () => {
    const narrowed = connectorValue.replace('"topics":".*"', '"topics":"orders"');
    const state = fold([
      [`connector-${source}`, connectorValue],
      [`connector-${source}`, narrowed],
    ]);
    expect(state.connectors.get(source)?.topics).toBe("orders");
  });
});

describe("the sandbox worker's real records (Kafka 4.3.1, captured with ConsoleConsumer)", () => {
  const bytes = (r: { key: string; value: string | null }) => [Buffer.from(r.key, "utf8"), r.value === null ? null : Buffer.from(r.value, "utf8")] as const;

  it("folds connect-configs into four connectors, the source one PAUSED with one committed task", () => {
    const state = createConnectConfigState();
    const decoded = decodeAll(sandboxConfigRecords.map((r) => ({ key: bytes(r)[0], value: bytes(r)[1] })), decodeConnectConfigTopicRecord);
    expect([decoded.malformed, decoded.skipped]).toEqual([0, 1]); // the session key
    for (const r of decoded.decoded) applyConnectConfigTopicRecord(state, r);
    expect([...state.connectors.keys()].sort()).toEqual(["mm2-east-west-checkpoint", "mm2-east-west-heartbeat", "mm2-east-west-source", "mm2-west-east-heartbeat"]);
    expect(state.targetStates.get(source)).toBe("PAUSED");
    expect(state.targetStates.get("mm2-east-west-heartbeat")).toBe("STARTED");
    expect(state.connectors.get(source)?.["connector.class"]).toBe("org.apache.kafka.connect.mirror.MirrorSourceConnector");
    expect(listTaskConfigs(state, source)?.map((c) => c["connector.class"])).toEqual(["org.apache.kafka.connect.mirror.MirrorSourceConnector"]);
    // MirrorCheckpointConnector committed 0 tasks: no consumer group to checkpoint yet.
    expect(listTaskConfigs(state, "mm2-east-west-checkpoint")).toEqual([]);
  });

  it("folds connect-status: the FAILED task with its trace, a stale UNASSIGNED of the same generation ignored", () => {
    const upTo = (offset: number) => {
      const table = createStatusTable();
      const records = sandboxStatusRecords.filter((r) => r.offset <= offset).map((r) => ({ key: bytes(r)[0], value: bytes(r)[1] }));
      const decoded = decodeAll(records, decodeConnectStatus);
      expect(decoded.malformed).toBe(0);
      for (const r of decoded.decoded) applyStatusRecord(table, r);
      return listConnectorStatuses(table).find((c) => c.name === source)!;
    };
    const failed = upTo(35).tasks[0]!;
    expect(failed).toMatchObject({ id: 0, state: "FAILED", workerId: "127.0.0.1:44443", generation: 10 });
    expect(failed.trace).toMatch(/^org\.apache\.kafka\.connect\.errors\.ConnectException: Tolerance exceeded in error handler\n\tat /);
    expect(failed.trace).toContain("Caused by: org.apache.kafka.connect.errors.DataException: Unexpected type in Cast transformation");
    // Offsets 38-40: RUNNING (generation 11), then UNASSIGNED of generation 11 from the rebalance, then RUNNING again.
    expect(upTo(39).tasks[0]).toMatchObject({ state: "RUNNING", generation: 11 });
  });

  it("reads MM2's positions from connect-offsets; the heartbeat connector's are foreign", () => {
    const decoded = decodeAll(sandboxOffsetRecords.map((r) => ({ key: bytes(r)[0], value: bytes(r)[1] })), decodeMirrorSourcePosition);
    expect(decoded.skipped).toBe(2);
    expect(decoded.decoded.map((d) => [d.connector, d.topic, d.partition, d.offset])).toEqual(
      sandboxOffsetRecords.filter((r) => r.key.startsWith(`["${source}"`)).map((r) => [source, "norest-8bd6d456", JSON.parse(r.key)[1].partition, BigInt(JSON.parse(r.value!).offset)]),
    );
  });
});
