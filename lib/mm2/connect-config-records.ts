/**
 * Connector configs from a Kafka Connect config topic (dedicated MM2: `mm2-configs.<source>.internal`
 * on the target, where MirrorHerder.configureConnectors puts MirrorMakerConfig.connectorBaseConfig of
 * each MM2 connector), read as connect/runtime/.../storage/KafkaConfigBackingStore.java reads it
 * (ConsumeCallback, processConnectorConfigRecord). Values are JSON from the worker's internal
 * JsonConverter, schemas disabled:
 *
 * - `connector-<name>`: `{"properties":{"connector.class":"…",…}}` replaces the connector's config; a
 *   tombstone (null) deletes the connector. Connect logs and ignores a value that is not an object or
 *   whose `properties` is not one: malformed here (every value MM2 writes is a string);
 * - `target-state-…`, `task-…`, `commit-…`, `restart-connector-…`, `tasks-fencing-…`, `session-key`,
 *   `logger-cluster-…`: task configs, pause/stop states and worker bookkeeping, foreign here.
 */
import { ForeignRecordError, MalformedRecordError } from "./errors";

/** One connector's config as the topic's newest record for it says, or null once it was deleted. */
export interface ConnectorConfigRecord {
  connector: string;
  config: Record<string, string> | null;
}

const connectorPrefix = "connector-";
/** Keys of the other record kinds KafkaConfigBackingStore writes (its *_PREFIX and SESSION_KEY_KEY). */
const foreignPrefixes = ["target-state-", "task-", "commit-", "restart-connector-", "tasks-fencing-", "session-key", "logger-cluster-"];
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes a record of a Connect config topic; only connector configs are not foreign. */
export function decodeConnectorConfig(key: Buffer | null, value: Buffer | null): ConnectorConfigRecord {
  const name = decodeText(key, "Connect config key");
  if (!name.startsWith(connectorPrefix)) {
    if (foreignPrefixes.some((p) => name.startsWith(p))) throw new ForeignRecordError(`Connect config key "${name}" is not a connector config`);
    throw new MalformedRecordError(`Connect config key "${name}" is not one Kafka Connect writes`);
  }
  const connector = name.slice(connectorPrefix.length);
  if (value === null) return { connector, config: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeText(value, "Connect config value"));
  } catch (err) {
    if (err instanceof MalformedRecordError) throw err;
    throw new MalformedRecordError("Connect config value is not valid JSON");
  }
  const properties = isPlainObject(parsed) ? parsed.properties : undefined;
  if (!isPlainObject(properties)) throw new MalformedRecordError(`config of connector ${connector} has no "properties" object`);
  const config: Record<string, string> = {};
  for (const [k, v] of Object.entries(properties)) {
    if (typeof v !== "string") throw new MalformedRecordError(`config of connector ${connector}: ${k} is not a string`);
    config[k] = v;
  }
  return { connector, config };
}

/** Applies one decoded record to the configs by connector name (a tombstone deletes the connector). */
export function applyConnectorConfigRecord(configs: Map<string, Record<string, string>>, record: ConnectorConfigRecord): void {
  if (record.config === null) configs.delete(record.connector);
  else configs.set(record.connector, record.config);
}

/**
 * MirrorConnectorConfig `enabled` ("Whether to replicate source->target", a ConfigDef BOOLEAN,
 * default true): MirrorSourceConnector.start returns at once, copying nothing, when it is false.
 * Dedicated MM2 always sets it (MirrorMakerConfig.connectorBaseConfig: `<source>-><target>.enabled`,
 * else "false"), also for the heartbeat-only herder it runs for every pair whose heartbeats are on.
 * Null for a value ConfigDef rejects (the connector fails to start).
 */
export function readMirrorEnabled(config: Readonly<Record<string, string>>): boolean | null {
  const value = config.enabled;
  if (value === undefined) return true;
  const v = value.trim().toLowerCase();
  return v === "true" ? true : v === "false" ? false : null;
}

/** A record's key or value as UTF-8 text; a null or invalid one is malformed (`what` names it). */
export function decodeText(bytes: Buffer | null, what: string): string {
  if (bytes === null) throw new MalformedRecordError(`${what} is null`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MalformedRecordError(`${what} is not valid UTF-8`);
  }
}

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
