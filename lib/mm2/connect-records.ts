/**
 * Decoders for the Kafka Connect internal records MM2 leaves behind (JSON, schemas disabled):
 *
 * - Offsets topic (`offset.storage.topic`; dedicated MM2: `mm2-offsets.<source>.internal`), written by
 *   MirrorSourceTask via MirrorUtils.wrapPartition/wrapOffset:
 *   key `["<connector>",{"cluster":"east","partition":0,"topic":"orders"}]` (map key order not
 *   guaranteed), value `{"offset":12345}` or null (tombstone). The same topic holds the positions of
 *   MirrorCheckpointConnector (`{group,topic,partition}`), MirrorHeartbeatConnector
 *   (`{sourceClusterAlias,targetClusterAlias}`) and any other connector: those are ForeignRecordError.
 * - Status topic (dedicated MM2: `mm2-status.<source>.internal`, connect/runtime/.../
 *   KafkaStatusBackingStore.java): keys `status-connector-<name>`, `status-task-<name>-<id>`
 *   (the id follows the last dash), `status-topic-…` (foreign); value
 *   `{"state","trace","worker_id","generation"}` or null.
 *
 * Offsets are parsed from the raw JSON text, not from JSON.parse's double, so values beyond 2^53
 * stay exact.
 */
import { ForeignRecordError, MalformedRecordError } from "./errors";
import { isInt64 } from "./protocol-types";
import {
  ConnectStatusState,
  type ConnectStatusBody,
  type ConnectStatusRecord,
  type ConnectStatusStateType,
  type MirrorSourcePosition,
} from "./types";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const SOURCE_PARTITION_KEYS = ["cluster", "partition", "topic"];
const NON_NEGATIVE_INTEGER = /^(0|[1-9][0-9]*)$/;
const CONNECTOR_PREFIX = "status-connector-";
const TASK_PREFIX = "status-task-";
const TOPIC_PREFIX = "status-topic-";
const knownStates = new Set<string>(Object.values(ConnectStatusState));
const INT32_MAX = 2 ** 31 - 1;

/** Decodes a MirrorSourceConnector position from Connect's offsets topic. */
export function decodeMirrorSourcePosition(key: Buffer | null, value: Buffer | null): MirrorSourcePosition {
  const parsedKey = parseJson(key, "Connect offsets key");
  if (!Array.isArray(parsedKey) || parsedKey.length !== 2) {
    throw new MalformedRecordError("Connect offsets key must be a JSON array [connector, partition]");
  }
  const [connector, partition] = parsedKey as [unknown, unknown];
  if (typeof connector !== "string" || !isPlainObject(partition)) {
    throw new MalformedRecordError("Connect offsets key must be [string, object]");
  }
  const keys = Object.keys(partition).sort();
  if (keys.join(",") !== SOURCE_PARTITION_KEYS.join(",")) {
    throw new ForeignRecordError(`Connect offsets key of ${connector} is not a MirrorSourceConnector partition`);
  }
  const { cluster, topic, partition: number } = partition;
  if (typeof cluster !== "string" || typeof topic !== "string") {
    throw new MalformedRecordError("MirrorSourceConnector partition cluster and topic must be strings");
  }
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0) {
    throw new MalformedRecordError(`MirrorSourceConnector partition number must be an integer >= 0, got ${String(number)}`);
  }
  return { connector, cluster, topic, partition: number, offset: decodeSourceOffset(value) };
}

/** Decodes a record of a Connect status topic. */
export function decodeConnectStatus(key: Buffer | null, value: Buffer | null): ConnectStatusRecord {
  const subject = parseStatusKey(decodeUtf8(key, "Connect status key"));
  return { ...subject, ...decodeStatusBody(value) };
}

/** Which connector or task a status key names; the key decides before the value is looked at. */
function parseStatusKey(name: string): { kind: "connector"; connector: string } | { kind: "task"; connector: string; taskId: number } {
  if (name.startsWith(CONNECTOR_PREFIX) && name.length > CONNECTOR_PREFIX.length) {
    return { kind: "connector", connector: name.slice(CONNECTOR_PREFIX.length) };
  }
  if (name.startsWith(TASK_PREFIX)) {
    // Mirrors KafkaStatusBackingStore.parseConnectorTaskId: the task id follows the last dash.
    // Integer.parseInt takes a leading "+" and leading zeros; ids stay within int32.
    const rest = name.slice(TASK_PREFIX.length);
    const dash = rest.lastIndexOf("-");
    const id = rest.slice(dash + 1);
    if (dash <= 0 || !/^\+?[0-9]+$/.test(id) || Number(id) > INT32_MAX) {
      throw new MalformedRecordError(`Connect status key "${name}" has no valid task id`);
    }
    return { kind: "task", connector: rest.slice(0, dash), taskId: Number(id) };
  }
  if (name.startsWith(TOPIC_PREFIX)) {
    throw new ForeignRecordError(`Connect status key "${name}" is a topic-tracking record`);
  }
  throw new MalformedRecordError(`Connect status key "${name}" is neither a connector nor a task status`);
}

function decodeSourceOffset(value: Buffer | null): bigint | null {
  if (value === null) return null;
  const text = decodeUtf8(value, "Connect offsets value");
  const parsed = parseJsonText(text, "Connect offsets value");
  if (!isPlainObject(parsed) || !("offset" in parsed)) {
    throw new MalformedRecordError('Connect offsets value must be an object with an "offset" field');
  }
  const token = findTopLevelValueToken(text, "offset");
  if (token === null || !NON_NEGATIVE_INTEGER.test(token)) {
    throw new MalformedRecordError(`MirrorSourceConnector offset must be a non-negative integer, got ${token ?? "nothing"}`);
  }
  const offset = BigInt(token);
  if (!isInt64(offset)) throw new MalformedRecordError(`MirrorSourceConnector offset ${token} exceeds int64`);
  return offset;
}

function decodeStatusBody(value: Buffer | null): ConnectStatusBody {
  if (value === null) return { state: null, trace: null, workerId: null, generation: null };
  const parsed = parseJson(value, "Connect status value");
  if (!isPlainObject(parsed)) throw new MalformedRecordError("Connect status value must be a JSON object");
  const { state, trace, worker_id: workerId, generation } = parsed;
  if (typeof state !== "string" || !knownStates.has(state)) {
    throw new MalformedRecordError(`Connect status state must be one of ${[...knownStates].join("/")}, got ${String(state)}`);
  }
  if (trace !== undefined && trace !== null && typeof trace !== "string") {
    throw new MalformedRecordError("Connect status trace must be a string or null");
  }
  if (typeof workerId !== "string") throw new MalformedRecordError("Connect status worker_id must be a string");
  // KafkaStatusBackingStore.parseTaskStatus/parseConnectorStatus cast it to Long: a record without
  // an integer generation fails to parse there and is ignored.
  if (typeof generation !== "number" || !Number.isSafeInteger(generation)) {
    throw new MalformedRecordError("Connect status generation must be an integer");
  }
  return {
    state: state as ConnectStatusStateType,
    trace: typeof trace === "string" ? trace : null,
    workerId,
    generation,
  };
}

function decodeUtf8(bytes: Buffer | null, what: string): string {
  if (bytes === null) throw new MalformedRecordError(`${what} is null`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MalformedRecordError(`${what} is not valid UTF-8`);
  }
}

function parseJson(bytes: Buffer | null, what: string): unknown {
  return parseJsonText(decodeUtf8(bytes, what), what);
}

function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MalformedRecordError(`${what} is not valid JSON`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Returns the raw text of the value of `key` in the top-level object of already-validated JSON
 * `text` (the last occurrence, as JSON.parse keeps the last duplicate), or null if absent. Only
 * scalars are returned verbatim; nested values return their first character, which never passes the
 * integer check.
 */
function findTopLevelValueToken(text: string, key: string): string | null {
  let depth = 0;
  let found: string | null = null;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = skipString(text, i);
      if (depth === 1 && findNextNonSpace(text, end) === ":" && JSON.parse(text.slice(i, end)) === key) {
        const start = text.indexOf(":", end) + 1;
        const match = /^\s*(-?[0-9][0-9eE.+-]*|[^\s,}]+)/.exec(text.slice(start));
        found = match?.[1] ?? null;
      }
      i = end;
      continue;
    }
    if (ch === "{" || ch === "[") depth += 1;
    if (ch === "}" || ch === "]") depth -= 1;
    i += 1;
  }
  return found;
}

function skipString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}

function findNextNonSpace(text: string, from: number): string | undefined {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? "")) i += 1;
  return text[i];
}
