import { isIP } from "node:net";
import type { ConnectionOptions as TlsConnectionOptions } from "node:tls";
import type { BaseOptions, Broker, SASLOptions } from "@platformatic/kafka";
import { z } from "zod";
import { ConfigError } from "@/lib/errors";
import { toNodeTlsOptions } from "@/lib/tls";
import { toSaslOptions } from "./sasl";
import type { KafkaClusterConnection } from "./types";

/** Defaults of a cluster connection. */
export const connectionDefaults = {
  clientId: "gapwatch",
  requestTimeoutMs: 10_000,
} as const;

/** A validated connection with defaults applied and bootstrap addresses parsed. */
export interface ResolvedConnection {
  alias: string;
  bootstrap: string[];
  brokers: Broker[];
  clientId: string;
  requestTimeoutMs: number;
  tls: TlsConnectionOptions | undefined;
  /** platformatic's SASL options, token providers included (one token cache for all clients of the connection). */
  sasl: SASLOptions | undefined;
}

// The shapes of types.ts' KafkaSasl; lib/config checks the same fields with messages for the config file.
const saslSchema = z.discriminatedUnion("mechanism", [
  z.object({
    mechanism: z.enum(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]),
    username: z.string().min(1, "SASL username must not be empty"),
    password: z.string().min(1, "SASL password must not be empty"),
  }).strict(),
  z.object({
    mechanism: z.literal("OAUTHBEARER"),
    tokenEndpointUrl: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1, "OAuth clientId must not be empty"),
    clientSecret: z.string().min(1, "OAuth clientSecret must not be empty"),
    scope: z.string().optional(),
    extensions: z.record(z.string(), z.string()).optional(),
    headerUrlencode: z.boolean().optional(),
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    refreshWindowFactor: z.number().min(0.5).max(1).optional(),
    refreshMinPeriodSeconds: z.number().int().min(0).max(900).optional(),
    refreshBufferSeconds: z.number().int().min(0).max(3600).optional(),
  }).strict(),
  z.object({
    mechanism: z.literal("AWS_MSK_IAM"),
    region: z.string().min(1, "AWS region must not be empty"),
    profile: z.string().min(1).optional(),
    roleArn: z.string().min(1).optional(),
    roleSessionName: z.string().min(1).optional(),
  }).strict(),
], { error: (issue) => (issue.code === "invalid_union" ? "SASL mechanism must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM" : undefined) });

// host:port, IPv6 hosts in brackets ("[::1]:9092"), as Kafka's own bootstrap.servers accepts.
const hostPort = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/;

const connectionSchema = z.object({
  alias: z.string().min(1, "alias must not be empty"),
  bootstrap: z
    .array(z.string().regex(hostPort, "each bootstrap server must be host:port"))
    .min(1, "give at least one bootstrap server"),
  clientId: z.string().regex(/^\S+$/, "clientId must not be empty or contain spaces").optional(),
  tls: z
    .union([
      z.boolean(),
      z.object({
        ca: z.string().optional(),
        cert: z.string().optional(),
        key: z.string().optional(),
        passphrase: z.string().optional(),
        pfx: z.string().optional(),
        rejectUnauthorized: z.boolean().optional(),
        verifyHostname: z.boolean().optional(),
      }).strict(),
    ])
    .optional(),
  sasl: saslSchema.optional(),
  requestTimeoutMs: z.number().int().min(100, "requestTimeoutMs must be at least 100").max(600_000).optional(),
}).strict();

/** Parses "host:port" (IPv6 in brackets) into a platformatic broker address. */
export function parseHostPort(address: string): Broker {
  const match = hostPort.exec(address);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(`"${address}" is not a valid host:port`);
  }
  return { host: match[1] ?? match[2] ?? "", port };
}

/**
 * Validates a connection and applies defaults; throws ConfigError naming the cluster and field.
 * Never echoes the password.
 */
export function resolveConnection(conn: KafkaClusterConnection): ResolvedConnection {
  const parsed = connectionSchema.safeParse(conn);
  if (!parsed.success) {
    const where = typeof conn?.alias === "string" && conn.alias ? `Kafka cluster "${conn.alias}"` : "Kafka cluster";
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(connection)"}: ${i.message}`).join("; ");
    throw new ConfigError(`${where}: invalid connection: ${issues}`);
  }
  const c = parsed.data;
  return {
    alias: c.alias,
    bootstrap: c.bootstrap,
    brokers: c.bootstrap.map(parseHostPort),
    clientId: c.clientId ?? connectionDefaults.clientId,
    requestTimeoutMs: c.requestTimeoutMs ?? connectionDefaults.requestTimeoutMs,
    tls: toTlsOptions(c.tls),
    sasl: toSaslOptions(c.alias, c.sasl),
  };
}

function toTlsOptions(tls: KafkaClusterConnection["tls"]): TlsConnectionOptions | undefined {
  if (tls === undefined || tls === false) return undefined;
  return tls === true ? {} : toNodeTlsOptions(tls);
}

/** IP literals get no SNI (RFC 6066 forbids it; Node warns); host names do, for proxies and ingresses routing by SNI. */
function isIpLiteral(host: string): boolean {
  return isIP(host) !== 0;
}

/**
 * Options for platformatic's clients. Retries are off: a poll cycle is retried by the next cycle,
 * and a client-side retry would resend requests (breaking "one request per broker") and hold the
 * cycle for retryDelay. connectTimeout and requestTimeout bound every step, so nothing hangs.
 */
export function toClientOptions(conn: ResolvedConnection, context: object): BaseOptions {
  return {
    clientId: conn.clientId,
    bootstrapBrokers: conn.brokers,
    connectTimeout: conn.requestTimeoutMs,
    requestTimeout: conn.requestTimeoutMs,
    timeout: conn.requestTimeoutMs,
    retries: 0,
    // Topics are never created by reading their metadata.
    autocreateTopics: false,
    context,
    // Node checks the certificate against the host connected to (hostname verification) unless verifyHostname is false.
    ...(conn.tls ? { tls: conn.tls, tlsServerName: !conn.brokers.some((b) => isIpLiteral(b.host)) } : {}),
    ...(conn.sasl ? { sasl: conn.sasl } : {}),
  };
}
