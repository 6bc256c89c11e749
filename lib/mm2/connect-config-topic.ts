/**
 * A distributed Connect cluster's config topic (`config.storage.topic`; Strimzi's old default
 * `mirrormaker2-cluster-configs`), read the way connect/runtime/.../storage/KafkaConfigBackingStore.java
 * (ConsumeCallback.onCompletion and its process*Record methods) reads it. Values are JSON from the worker's
 * internal JsonConverter, schemas disabled:
 *
 * - `connector-<name>` `{"properties":{…}}` replaces the connector's config (and gives it target state STARTED
 *   unless it has one); a tombstone removes the connector, its task count and its task configs;
 * - `target-state-<name>` `{"state":"PAUSED","state.v2":"STOPPED"}`: `state.v2` when it is a string, else
 *   `state` (workers before 3.5 write only `state`); a tombstone removes it (STARTED again while the connector
 *   still has a config);
 * - `task-<name>-<id>` `{"properties":{…}}` is held back until the connector's next commit record;
 * - `commit-<name>` `{"tasks":N}` applies the held-back task configs when they hold ids 0..N-1 (else the
 *   connector is "inconsistent", as compaction can leave it); ignored, and the connector's leftovers dropped,
 *   when the connector has no config;
 * - `restart-connector-…`, `tasks-fencing-…`, `session-key`, `logger-cluster-…`: worker bookkeeping (foreign).
 *
 * A value Connect logs and ignores (not an object, `properties` not an object) is malformed here.
 */
import { decodeText, isPlainObject } from "./connect-config-records";
import { ForeignRecordError, MalformedRecordError } from "./errors";

/** A connector's target state (connect/runtime/.../TargetState.java). */
export const ConnectTargetState = { STARTED: "STARTED", PAUSED: "PAUSED", STOPPED: "STOPPED" } as const;
export type ConnectTargetStateType = (typeof ConnectTargetState)[keyof typeof ConnectTargetState];

export type ConnectConfigTopicRecord =
  | { kind: "connector"; connector: string; config: Record<string, string> | null }
  | { kind: "target-state"; connector: string; state: ConnectTargetStateType | null }
  | { kind: "task"; connector: string; taskId: number; config: Record<string, string> }
  | { kind: "commit"; connector: string; tasks: number };

/** What KafkaConfigBackingStore holds after reading the topic (its ClusterConfigState, the parts Gapwatch uses). */
export interface ConnectConfigState {
  connectors: Map<string, Record<string, string>>;
  targetStates: Map<string, ConnectTargetStateType>;
  /** Committed task configs by connector, then task id. */
  taskConfigs: Map<string, Map<number, Record<string, string>>>;
  /** Task count of each connector's newest commit record. */
  taskCounts: Map<string, number>;
  /** Task configs read but not yet committed. */
  deferred: Map<string, Map<number, Record<string, string>>>;
  /** Connectors whose newest commit did not find all its task configs (compaction). */
  inconsistent: Set<string>;
}

const foreignPrefixes = ["restart-connector-", "tasks-fencing-", "logger-cluster-"];
const targetStates = new Set<string>(Object.values(ConnectTargetState));
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An empty config state. */
export function createConnectConfigState(): ConnectConfigState {
  return {
    connectors: new Map(),
    targetStates: new Map(),
    taskConfigs: new Map(),
    taskCounts: new Map(),
    deferred: new Map(),
    inconsistent: new Set(),
  };
}

/** Decodes one record of a Connect config topic (key order of the checks as in KafkaConfigBackingStore). */
export function decodeConnectConfigTopicRecord(key: Buffer | null, value: Buffer | null): ConnectConfigTopicRecord {
  const name = decodeText(key, "Connect config key");
  if (name.startsWith("target-state-")) {
    return { kind: "target-state", connector: name.slice("target-state-".length), state: decodeTargetState(name, value) };
  }
  if (name.startsWith("connector-")) {
    const connector = name.slice("connector-".length);
    const config = value === null ? null : decodeProperties(value, `config of connector ${connector}`);
    return { kind: "connector", connector, config };
  }
  if (name.startsWith("task-")) {
    const { connector, taskId } = parseTaskKey(name);
    if (value === null) throw new MalformedRecordError(`task config "${name}" is null`);
    return { kind: "task", connector, taskId, config: decodeProperties(value, `config of task ${connector}-${taskId}`) };
  }
  if (name.startsWith("commit-")) {
    const connector = name.slice("commit-".length);
    const parsed = parseObject(value, `task commit of connector ${connector}`);
    const tasks = parsed.tasks;
    if (typeof tasks !== "number" || !Number.isInteger(tasks) || tasks < INT32_MIN || tasks > INT32_MAX) {
      throw new MalformedRecordError(`task commit of connector ${connector}: "tasks" must be an integer`);
    }
    return { kind: "commit", connector, tasks };
  }
  if (name === "session-key" || foreignPrefixes.some((p) => name.startsWith(p))) {
    throw new ForeignRecordError(`Connect config key "${name}" is worker bookkeeping`);
  }
  throw new MalformedRecordError(`Connect config key "${name}" is not one Kafka Connect writes`);
}

/** Applies one decoded record to `state` (the rules in the module comment). */
export function applyConnectConfigTopicRecord(state: ConnectConfigState, record: ConnectConfigTopicRecord): void {
  const { connector } = record;
  switch (record.kind) {
    case "connector":
      if (record.config === null) {
        removeConnector(state, connector);
      } else {
        state.connectors.set(connector, record.config);
        if (!state.targetStates.has(connector)) state.targetStates.set(connector, ConnectTargetState.STARTED);
      }
      return;
    case "target-state":
      if (record.state !== null) state.targetStates.set(connector, record.state);
      else if (state.connectors.has(connector)) state.targetStates.set(connector, ConnectTargetState.STARTED);
      else state.targetStates.delete(connector);
      return;
    case "task": {
      const held = state.deferred.get(connector) ?? new Map<number, Record<string, string>>();
      held.set(record.taskId, record.config);
      state.deferred.set(connector, held);
      return;
    }
    case "commit":
      applyCommit(state, connector, record.tasks);
  }
}

function applyCommit(state: ConnectConfigState, connector: string, tasks: number): void {
  if (!state.connectors.has(connector)) {
    removeConnector(state, connector);
    return;
  }
  const deferred = state.deferred.get(connector);
  const ids = new Set(deferred?.keys() ?? []);
  const complete = ids.size >= tasks && Array.from({ length: Math.max(tasks, 0) }, (_, i) => i).every((i) => ids.has(i));
  if (!complete) {
    state.inconsistent.add(connector);
  } else {
    if (deferred) {
      // taskConfigs.putAll(deferred): configs of task ids above the new count stay, as in Connect.
      const committed = state.taskConfigs.get(connector) ?? new Map<number, Record<string, string>>();
      for (const [id, config] of deferred) committed.set(id, config);
      state.taskConfigs.set(connector, committed);
    }
    state.inconsistent.delete(connector);
  }
  deferred?.clear();
  state.taskCounts.set(connector, tasks);
}

/** KafkaConfigBackingStore.processConnectorRemoval (the target state stays until its own tombstone). */
function removeConnector(state: ConnectConfigState, connector: string): void {
  state.connectors.delete(connector);
  state.taskCounts.delete(connector);
  state.taskConfigs.delete(connector);
  state.deferred.delete(connector);
}

/**
 * The configs of a connector's current tasks (ids below its committed task count; ClusterConfigState.tasks),
 * or null while it has no complete commit.
 */
export function listTaskConfigs(state: ConnectConfigState, connector: string): Record<string, string>[] | null {
  const count = state.taskCounts.get(connector);
  if (count === undefined || state.inconsistent.has(connector)) return null;
  const committed = state.taskConfigs.get(connector);
  const configs: Record<string, string>[] = [];
  for (let id = 0; id < count; id++) {
    const config = committed?.get(id);
    if (config === undefined) return null;
    configs.push(config);
  }
  return configs;
}

/** KafkaConfigBackingStore.parseTaskId: the id follows the last dash; the connector is what lies between. */
function parseTaskKey(key: string): { connector: string; taskId: number } {
  const parts = key.split("-");
  const last = parts.at(-1) ?? "";
  // Integer.parseInt takes a leading sign and leading zeros.
  if (parts.length < 3 || !/^[+-]?[0-9]+$/.test(last) || Number(last) > INT32_MAX || Number(last) < INT32_MIN) {
    throw new MalformedRecordError(`Connect config key "${key}" is not a task config key`);
  }
  return { connector: parts.slice(1, -1).join("-"), taskId: Number(last) };
}

function decodeTargetState(key: string, value: Buffer | null): ConnectTargetStateType | null {
  if (value === null) return null;
  const parsed = parseObject(value, `target state "${key}"`);
  const v2 = typeof parsed["state.v2"] === "string" ? parsed["state.v2"] : null;
  const state = v2 ?? parsed.state;
  if (typeof state !== "string" || !targetStates.has(state)) {
    const allowed = [...targetStates].join("/");
    throw new MalformedRecordError(`target state "${key}" must be one of ${allowed}, got ${String(state)}`);
  }
  return state as ConnectTargetStateType;
}

function decodeProperties(value: Buffer, what: string): Record<string, string> {
  const properties = parseObject(value, what).properties;
  if (!isPlainObject(properties)) throw new MalformedRecordError(`${what} has no "properties" object`);
  const config: Record<string, string> = {};
  for (const [k, v] of Object.entries(properties)) {
    if (typeof v !== "string") throw new MalformedRecordError(`${what}: ${k} is not a string`);
    config[k] = v;
  }
  return config;
}

function parseObject(value: Buffer | null, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeText(value, what));
  } catch (err) {
    if (err instanceof MalformedRecordError) throw err;
    throw new MalformedRecordError(`${what} is not valid JSON`);
  }
  if (!isPlainObject(parsed)) throw new MalformedRecordError(`${what} is not a JSON object`);
  return parsed;
}
