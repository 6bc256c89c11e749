import { describe, expect, it } from "vitest";
import { applyConnectorConfigRecord, decodeConnectorConfig, readMirrorEnabled } from "@/lib/mm2/connect-config-records";
import { ForeignRecordError, MalformedRecordError } from "@/lib/mm2/errors";
import { decodeAll } from "@/lib/mm2/record-decoders";
import { readTopicFilter } from "@/lib/mm2/topic-filter";
import { type CapturedRecord, eastToWestConfigRecords, westToEastConfigRecords } from "./helpers/dedicated-config-records";

const text = (value: string): Buffer => Buffer.from(value, "utf8");
const raw = (records: readonly CapturedRecord[]) => records.map((r) => ({ key: text(r.key), value: text(r.value) }));
const KEY = text("connector-MirrorSourceConnector");

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect(error).not.toBeInstanceOf(ForeignRecordError);
    return (error as MalformedRecordError).reason;
  }
  return expect.fail("expected a MalformedRecordError");
}

/** The configs a Connect worker holds after reading `records` in order. */
function fold(records: readonly CapturedRecord[]): Map<string, Record<string, string>> {
  const configs = new Map<string, Record<string, string>>();
  for (const r of decodeAll(raw(records), decodeConnectorConfig).decoded) applyConnectorConfigRecord(configs, r);
  return configs;
}

describe("decodeConnectorConfig on the records dedicated MM2 wrote (Kafka 4.3.1)", () => {
  it("decodes the three connector configs of the east->west herder and skips its session key, task configs and commits", () => {
    const result = decodeAll(raw(eastToWestConfigRecords), decodeConnectorConfig);
    expect(result.decoded.map((r) => r.connector)).toEqual(["MirrorHeartbeatConnector", "MirrorSourceConnector", "MirrorCheckpointConnector"]);
    expect([result.skipped, result.malformed]).toEqual([6, 0]);
    const source = result.decoded[1]!.config!;
    expect(Object.keys(source)).toHaveLength(25);
    expect([source["connector.class"], source.name, source["source.cluster.alias"], source["target.cluster.alias"], source.topics, source.enabled]).toEqual([
      "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      "MirrorSourceConnector",
      "east",
      "west",
      ".*",
      "true",
    ]);
    expect(readMirrorEnabled(source)).toBe(true);
    expect(readTopicFilter(source)).toMatchObject({ kind: "default", topics: ".*", topicsExclude: ".*[\\-\\.]internal, .*\\.replica, __.*" });
  });

  it("reads the heartbeat-only west->east herder's MirrorSourceConnector as disabled", () => {
    const configs = fold(westToEastConfigRecords);
    expect([...configs.keys()]).toEqual(["MirrorCheckpointConnector", "MirrorSourceConnector", "MirrorHeartbeatConnector"]);
    const source = configs.get("MirrorSourceConnector")!;
    expect([source["source.cluster.alias"], source["target.cluster.alias"], source.enabled, source.topics]).toEqual(["west", "east", "false", undefined]);
    expect(readMirrorEnabled(source)).toBe(false);
    expect(readMirrorEnabled(configs.get("MirrorHeartbeatConnector")!)).toBe(false);
  });

  it("applies a tombstone as the connector's deletion, and a later record as its new config", () => {
    const configs = fold(eastToWestConfigRecords);
    applyConnectorConfigRecord(configs, decodeConnectorConfig(KEY, null));
    expect([...configs.keys()]).toEqual(["MirrorHeartbeatConnector", "MirrorCheckpointConnector"]);
    applyConnectorConfigRecord(configs, decodeConnectorConfig(KEY, text('{"properties":{"topics":"dedicated-.*"}}')));
    expect(configs.get("MirrorSourceConnector")).toEqual({ topics: "dedicated-.*" });
  });

  it("treats every other record kind Connect writes as foreign", () => {
    const keys = ["target-state-MirrorSourceConnector", "restart-connector-x", "tasks-fencing-x", "logger-cluster-org.apache", "task-x-0", "commit-x", "session-key"];
    for (const key of keys) expect(() => decodeConnectorConfig(text(key), text("{}"))).toThrow(ForeignRecordError);
  });

  it("rejects what Connect would ignore: a value that is no JSON object with a properties object, non-string values, unknown or null keys", () => {
    expect(reasonOf(() => decodeConnectorConfig(KEY, text("{properties")))).toBe("Connect config value is not valid JSON");
    expect(reasonOf(() => decodeConnectorConfig(KEY, text('["properties"]')))).toBe('config of connector MirrorSourceConnector has no "properties" object');
    expect(reasonOf(() => decodeConnectorConfig(KEY, text('{"properties":"topics=.*"}')))).toBe('config of connector MirrorSourceConnector has no "properties" object');
    expect(reasonOf(() => decodeConnectorConfig(KEY, text('{"properties":{"tasks.max":1}}')))).toBe("config of connector MirrorSourceConnector: tasks.max is not a string");
    expect(reasonOf(() => decodeConnectorConfig(text("status-connector-x"), text("{}")))).toBe('Connect config key "status-connector-x" is not one Kafka Connect writes');
    expect(reasonOf(() => decodeConnectorConfig(null, text("{}")))).toBe("Connect config key is null");
    expect(reasonOf(() => decodeConnectorConfig(KEY, Buffer.from([0xff, 0xfe])))).toBe("Connect config value is not valid UTF-8");
  });
});

describe("readMirrorEnabled", () => {
  it("reads `enabled` as Kafka's ConfigDef BOOLEAN does, true when absent, null for a value it rejects", () => {
    const cases = [undefined, "true", " TRUE ", "false", "False", "yes", ""].map((enabled) => readMirrorEnabled(enabled === undefined ? {} : { enabled }));
    expect(cases).toEqual([true, true, true, false, false, null, null]);
  });
});
