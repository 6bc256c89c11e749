import { protocolErrorsCodesById, TimeoutError } from "@platformatic/kafka";
import { errorCodes, GapwatchError, KafkaUnreachableError } from "@/lib/errors";
import { explainConnectionFailure } from "./connection-hints";
import type { ResolvedConnection } from "./options";

/**
 * A broker answered, but with an error that fails the whole call (e.g. ListGroups on a broker
 * whose coordinator is loading). HTTP 503 like an unreachable cluster: retry on the next cycle.
 */
export class KafkaRequestError extends GapwatchError {
  readonly cluster: string;
  constructor(cluster: string, message: string, options?: { cause?: unknown }) {
    super(errorCodes.kafkaUnreachable, message, options);
    this.cluster = cluster;
  }
}

/** Kafka's name for a protocol error code (Kafka's `Errors` enum), e.g. 6 → "NOT_LEADER_OR_FOLLOWER". */
export function kafkaErrorName(code: number): string {
  return protocolErrorsCodesById[code] ?? `KAFKA_ERROR_${code}`;
}

/** Errors whose partitions need fresh metadata (leader moved, topic recreated) before a retry. */
export const staleMetadataErrors: ReadonlySet<string> = new Set([
  "NOT_LEADER_OR_FOLLOWER",
  "LEADER_NOT_AVAILABLE",
  "UNKNOWN_TOPIC_OR_PARTITION",
  "UNKNOWN_TOPIC_ID",
  "FENCED_LEADER_EPOCH",
  "UNKNOWN_LEADER_EPOCH",
  "INCONSISTENT_TOPIC_ID",
]);

function childErrorsOf(err: unknown): unknown[] {
  return err instanceof AggregateError ? err.errors : [];
}

function causeOf(err: unknown): unknown {
  return err instanceof Error ? err.cause : undefined;
}

/** True when the error (or every error it aggregates) means no answer came: refused, reset, timed out. */
export function isNetworkFailure(err: unknown): boolean {
  const children = childErrorsOf(err);
  if (children.length > 0) return children.every(isNetworkFailure);
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  // platformatic's TimeoutError carries the NetworkError code (PLT_KFK_NETWORK), so both match here.
  if (code === "PLT_KFK_NETWORK" || err instanceof TimeoutError) return true;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  return err.message === "Connection pool is closed." || err.message === "Connection closed";
}

/** True when the error (or one it wraps) is a request or connect timeout. */
export function isTimeout(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  return childErrorsOf(err).some(isTimeout) || (causeOf(err) !== undefined && isTimeout(causeOf(err)));
}

/**
 * The useful line of a platformatic error chain: the innermost causes ("connect ECONNREFUSED
 * 127.0.0.1:9092"), de-duplicated, instead of wrappers like "Cannot connect to any broker.".
 */
export function describeKafkaError(err: unknown, timeoutMs?: number): string {
  const messages = new Set<string>();
  const visit = (e: unknown): void => {
    const children = childErrorsOf(e);
    if (children.length > 0) {
      children.forEach(visit);
      return;
    }
    const cause = causeOf(e);
    if (cause !== undefined && cause !== null) {
      visit(cause);
      return;
    }
    if (e instanceof TimeoutError && timeoutMs !== undefined) {
      messages.add(`${e.message.replace(/\.$/, "")} (no answer within ${timeoutMs} ms)`);
    } else if (e instanceof Error) {
      const apiId = (e as { apiId?: unknown }).apiId;
      messages.add(typeof apiId === "string" ? apiId : e.message);
    } else {
      messages.add(String(e));
    }
  };
  visit(err);
  return [...messages].join("; ") || "unknown error";
}

/** "cluster east (127.0.0.1:9092) unreachable: connect ECONNREFUSED 127.0.0.1:9092". */
export function toUnreachableError(conn: ResolvedConnection, err: unknown, what?: string): KafkaUnreachableError {
  if (err instanceof KafkaUnreachableError) return err;
  const target = what ? ` ${what}` : "";
  const hint = explainConnectionFailure(conn, err);
  const reason = describeKafkaError(err, conn.requestTimeoutMs);
  const message = `cluster ${conn.alias} (${conn.bootstrap.join(", ")})${target} unreachable: ${hint ? `${hint} (${reason})` : reason}`;
  return new KafkaUnreachableError(conn.alias, message, { cause: err });
}

/** Maps a failed call to KafkaUnreachableError (no answer) or KafkaRequestError (an error answer). */
export function toClusterError(conn: ResolvedConnection, err: unknown, what: string): GapwatchError {
  if (err instanceof GapwatchError) return err;
  if (isNetworkFailure(err)) return toUnreachableError(conn, err, what);
  return new KafkaRequestError(conn.alias, `cluster ${conn.alias}: ${what} failed: ${describeKafkaError(err, conn.requestTimeoutMs)}`, {
    cause: err,
  });
}
