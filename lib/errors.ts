/**
 * Typed errors with stable codes (after platformatic/kafka src/errors.ts). Route handlers map a
 * code to an HTTP status with `httpStatusOf`; messages say what failed and what to fix.
 */
export const errorCodes = {
  config: "GW_CONFIG",
  badRequest: "GW_BAD_REQUEST",
  notFound: "GW_NOT_FOUND",
  kafkaUnreachable: "GW_KAFKA_UNREACHABLE",
  connectApi: "GW_CONNECT_API",
  unauthorized: "GW_UNAUTHORIZED",
  forbidden: "GW_FORBIDDEN",
  rateLimited: "GW_RATE_LIMITED",
  /** This process's GAPWATCH_ROLE does not serve the request (a collector serves no pages). */
  notThisRole: "GW_NOT_THIS_ROLE",
  /** Role all's collector process is not running or did not answer (it is started again on its own). */
  collectorUnavailable: "GW_COLLECTOR_UNAVAILABLE",
  /** The action cannot be taken the way Gapwatch reaches the system (e.g. a restart with no Connect REST API). */
  actionUnavailable: "GW_ACTION_UNAVAILABLE",
} as const;
export type ErrorCode = (typeof errorCodes)[keyof typeof errorCodes];

export class GapwatchError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The config file is missing, unparsable or invalid; the message names the file and field. */
export class ConfigError extends GapwatchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(errorCodes.config, message, options);
  }
}

/** A request parameter is invalid; the message names the parameter and what is allowed. */
export class BadRequestError extends GapwatchError {
  constructor(message: string) {
    super(errorCodes.badRequest, message);
  }
}

export class NotFoundError extends GapwatchError {
  constructor(message: string) {
    super(errorCodes.notFound, message);
  }
}

/** No broker of a cluster answered. */
export class KafkaUnreachableError extends GapwatchError {
  readonly cluster: string;
  constructor(cluster: string, message: string, options?: { cause?: unknown }) {
    super(errorCodes.kafkaUnreachable, message, options);
    this.cluster = cluster;
  }
}

/** A Kafka Connect REST call failed: the message says which URL and how (status, body, timeout). */
export class ConnectApiError extends GapwatchError {
  readonly url: string;
  readonly status: number | null;
  constructor(url: string, status: number | null, message: string, options?: { cause?: unknown }) {
    super(errorCodes.connectApi, message, options);
    this.url = url;
    this.status = status;
  }
}

/** An action Gapwatch cannot take here; the message says why and where to take it instead. */
export class ActionUnavailableError extends GapwatchError {
  constructor(message: string) {
    super(errorCodes.actionUnavailable, message);
  }
}

/** The collector process of GAPWATCH_ROLE=all (lib/pipeline/collector-process.ts) cannot answer now. */
export class CollectorUnavailableError extends GapwatchError {
  constructor(message: string) {
    super(errorCodes.collectorUnavailable, message);
  }
}

const statusByCode: Record<ErrorCode, number> = {
  GW_CONFIG: 500,
  GW_BAD_REQUEST: 400,
  GW_NOT_FOUND: 404,
  GW_KAFKA_UNREACHABLE: 503,
  GW_CONNECT_API: 502,
  GW_UNAUTHORIZED: 401,
  GW_FORBIDDEN: 403,
  GW_RATE_LIMITED: 429,
  GW_NOT_THIS_ROLE: 503,
  GW_COLLECTOR_UNAVAILABLE: 503,
  GW_ACTION_UNAVAILABLE: 409,
};

/** HTTP status for an error raised anywhere in lib/; unknown errors are 500. */
export function httpStatusOf(err: unknown): number {
  return err instanceof GapwatchError ? statusByCode[err.code] : 500;
}
