import { describe, expect, it } from "vitest";
import { decodeConnectStatus, decodeMirrorSourcePosition } from "@/lib/mm2/connect-records";
import { ForeignRecordError, MalformedRecordError } from "@/lib/mm2/errors";
import { decodeAll } from "@/lib/mm2/record-decoders";

const text = (value: string): Buffer => Buffer.from(value, "utf8");
const SOURCE_KEY = text('["mm2-east-west-source",{"cluster":"east","partition":0,"topic":"orders"}]');

function errorOf(fn: () => unknown): MalformedRecordError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedRecordError);
    return error as MalformedRecordError;
  }
  return expect.fail("expected a MalformedRecordError");
}

describe("decodeMirrorSourcePosition", () => {
  it("decodes a MirrorSourceConnector position", () => {
    expect(decodeMirrorSourcePosition(SOURCE_KEY, text('{"offset":12345}'))).toEqual({
      connector: "mm2-east-west-source",
      cluster: "east",
      topic: "orders",
      partition: 0,
      offset: 12345n,
    });
  });

  it("accepts any key order, any connector name and whitespace", () => {
    const key = text('[ "MirrorSourceConnector" , { "topic" : "a.b" , "cluster" : "west" , "partition" : 12 } ]');
    const position = decodeMirrorSourcePosition(key, text(' { "offset" : 7 } '));
    expect(position).toMatchObject({ connector: "MirrorSourceConnector", cluster: "west", topic: "a.b", partition: 12, offset: 7n });
  });

  it("parses offsets beyond 2^53 from the raw text without losing precision", () => {
    expect(decodeMirrorSourcePosition(SOURCE_KEY, text('{"offset":9007199254740993}')).offset).toBe(9007199254740993n);
    expect(decodeMirrorSourcePosition(SOURCE_KEY, text('{"offset":9223372036854775807}')).offset).toBe(9223372036854775807n);
  });

  it("uses the top-level offset field, not one hidden in a string or nested object", () => {
    const value = text('{"note":"\\"offset\\":1","nested":{"offset":2},"offset":3}');
    expect(decodeMirrorSourcePosition(SOURCE_KEY, value).offset).toBe(3n);
  });

  it("decodes a tombstone as a null offset", () => {
    expect(decodeMirrorSourcePosition(SOURCE_KEY, null).offset).toBeNull();
  });

  it("rejects negative, fractional, exponent, string, too large and missing offsets", () => {
    for (const value of ['{"offset":-1}', '{"offset":1.5}', '{"offset":1e3}', '{"offset":"12"}', '{"offset":null}', "{}", "[1]"]) {
      expect(errorOf(() => decodeMirrorSourcePosition(SOURCE_KEY, text(value))).code).toBe("GW_MALFORMED_RECORD");
    }
    expect(errorOf(() => decodeMirrorSourcePosition(SOURCE_KEY, text('{"offset":9223372036854775808}'))).reason).toMatch(/exceeds int64/);
  });

  it("rejects garbage JSON, a null key and keys of the wrong shape", () => {
    expect(errorOf(() => decodeMirrorSourcePosition(SOURCE_KEY, text("{offset:1"))).reason).toBe("Connect offsets value is not valid JSON");
    expect(errorOf(() => decodeMirrorSourcePosition(null, text('{"offset":1}'))).reason).toBe("Connect offsets key is null");
    expect(errorOf(() => decodeMirrorSourcePosition(text('{"a":1}'), null)).reason).toMatch(/JSON array/);
    expect(errorOf(() => decodeMirrorSourcePosition(text('[1,{"cluster":"e"}]'), null)).reason).toMatch(/\[string, object\]/);
    const badPartition = text('["c",{"cluster":"east","partition":-1,"topic":"orders"}]');
    expect(errorOf(() => decodeMirrorSourcePosition(badPartition, null)).reason).toMatch(/integer >= 0/);
    expect(errorOf(() => decodeMirrorSourcePosition(Buffer.from([0xff]), null)).reason).toMatch(/UTF-8/);
  });

  it("marks other connectors' positions in the shared offsets topic as foreign", () => {
    const checkpointKey = text('["mm2-checkpoint",{"group":"g","topic":"orders","partition":0}]');
    const heartbeatKey = text('["mm2-heartbeat",{"sourceClusterAlias":"east","targetClusterAlias":"west"}]');
    expect(() => decodeMirrorSourcePosition(checkpointKey, text('{"offset":0}'))).toThrow(ForeignRecordError);
    expect(() => decodeMirrorSourcePosition(heartbeatKey, text('{"offset":0}'))).toThrow(ForeignRecordError);
    const result = decodeAll(
      [
        { key: SOURCE_KEY, value: text('{"offset":5}') },
        { key: checkpointKey, value: text('{"offset":0}') },
        { key: SOURCE_KEY, value: text("nope") },
      ],
      decodeMirrorSourcePosition,
    );
    expect(result).toMatchObject({ malformed: 1, skipped: 1, lastError: "Connect offsets value is not valid JSON" });
    expect(result.decoded.map((p) => p.offset)).toEqual([5n]);
  });
});

describe("decodeConnectStatus", () => {
  const running = text('{"state":"RUNNING","trace":null,"worker_id":"10.0.0.1:8083","generation":3}');

  it("decodes a connector status", () => {
    expect(decodeConnectStatus(text("status-connector-mm2-east-west-source"), running)).toEqual({
      kind: "connector",
      connector: "mm2-east-west-source",
      state: "RUNNING",
      trace: null,
      workerId: "10.0.0.1:8083",
      generation: 3,
    });
  });

  it("takes the task id after the last dash of a task key", () => {
    const failed = text('{"state":"FAILED","trace":"org.apache.kafka.connect.errors.ConnectException: boom","worker_id":"w","generation":9}');
    expect(decodeConnectStatus(text("status-task-mm2-east-west-source-12"), failed)).toMatchObject({
      kind: "task",
      connector: "mm2-east-west-source",
      taskId: 12,
      state: "FAILED",
      trace: "org.apache.kafka.connect.errors.ConnectException: boom",
    });
  });

  it("decodes a tombstone with every value field null", () => {
    expect(decodeConnectStatus(text("status-task-c-0"), null)).toEqual({
      kind: "task",
      connector: "c",
      taskId: 0,
      state: null,
      trace: null,
      workerId: null,
      generation: null,
    });
  });

  it("reads the task id as Integer.parseInt does (a leading + or zeros), up to int32", () => {
    expect(decodeConnectStatus(text("status-task-c-007"), running)).toMatchObject({ connector: "c", taskId: 7 });
    expect(decodeConnectStatus(text("status-task-c-+3"), running)).toMatchObject({ connector: "c", taskId: 3 });
    expect(errorOf(() => decodeConnectStatus(text("status-task-c-2147483648"), running)).reason).toMatch(/no valid task id/);
  });

  it("rejects a status without an integer generation, as Connect's reader fails on it", () => {
    expect(errorOf(() => decodeConnectStatus(text("status-task-c-0"), text('{"state":"RUNNING","worker_id":"w"}'))).reason).toMatch(/generation/);
    expect(errorOf(() => decodeConnectStatus(text("status-task-c-0"), text('{"state":"RUNNING","worker_id":"w","generation":1.5}'))).reason).toMatch(
      /generation/,
    );
  });

  it("marks topic-tracking records as foreign", () => {
    expect(() => decodeConnectStatus(text("status-topic-orders:connector-c"), text("{}"))).toThrow(ForeignRecordError);
  });

  it("rejects unknown keys, bad task ids, unknown states and wrong field types", () => {
    expect(errorOf(() => decodeConnectStatus(text("config-c"), running)).reason).toMatch(/neither a connector nor a task/);
    expect(errorOf(() => decodeConnectStatus(text("status-task-c-x"), running)).reason).toMatch(/no valid task id/);
    expect(errorOf(() => decodeConnectStatus(text("status-task-7"), running)).reason).toMatch(/no valid task id/);
    expect(errorOf(() => decodeConnectStatus(text("status-connector-c"), text('{"state":"DANCING","worker_id":"w"}'))).reason).toMatch(
      /state must be one of/,
    );
    expect(errorOf(() => decodeConnectStatus(text("status-connector-c"), text('{"state":"RUNNING"}'))).reason).toMatch(/worker_id/);
    expect(errorOf(() => decodeConnectStatus(text("status-connector-c"), text('{"state":"RUNNING","worker_id":"w","trace":5}'))).reason).toMatch(
      /trace/,
    );
    expect(errorOf(() => decodeConnectStatus(text("status-connector-c"), text("[]"))).reason).toMatch(/JSON object/);
    expect(errorOf(() => decodeConnectStatus(null, running)).reason).toBe("Connect status key is null");
  });
});
