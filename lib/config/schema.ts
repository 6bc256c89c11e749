import { z } from "zod";
import { saslSchema } from "./sasl";
import { scaleOutSchema } from "./scale-out";
import { serverSchema } from "./server";
import { thresholdsSchema } from "./thresholds";
import { tlsObjectSchema, tlsSchema } from "./tls";
import type { TlsMaterial } from "@/lib/tls";

/**
 * The shape of gapwatch.config.yaml. Secrets are given as `${ENV_VAR}` references and resolved
 * from the environment before validation (see load.ts), so the file itself can be committed.
 */
const bootstrapSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter((s) => s.length > 0))
  .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, "each bootstrap server must be host:port")).min(1, "give at least one bootstrap server"));

export const clusterSchema = z.object({
  /** The alias MM2 uses for this cluster (source.cluster.alias / target.cluster.alias). */
  alias: z.string().regex(/^[A-Za-z0-9_.-]+$/, "alias may hold letters, digits, '.', '_' and '-' only"),
  bootstrap: bootstrapSchema,
  tls: tlsSchema.optional(),
  sasl: saslSchema.optional(),
}).strict();

const topicNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}$/, "must be a Kafka topic name (letters, digits, '.', '_', '-')");

/**
 * Connect's own topics (the worker's `config.storage.topic`, `offset.storage.topic`, `status.storage.topic`) on the
 * Kafka cluster `cluster` (an alias of `clusters`): Gapwatch reads connector states, configs and MM2's positions
 * from them when the REST API cannot be reached (e.g. Strimzi's NetworkPolicy). See docs/connect-without-rest.md.
 */
const internalTopicsSchema = z.object({
  cluster: z.string().min(1, "name the alias of the Kafka cluster holding Connect's topics (usually MM2's target)"),
  configs: topicNameSchema,
  offsets: topicNameSchema,
  status: topicNameSchema,
}).strict();

/** An HTTP header name (RFC 9110 token). */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers Gapwatch sets itself: a configured value would be overwritten or break the request. */
const reservedHeaders = new Set([
  "authorization", "accept", "content-type", "content-length", "host", "connection", "transfer-encoding",
]);

export const connectSchema = z.object({
  name: z.string().min(1),
  /** The REST API; optional when `internalTopics` is given (then it is tried first, the topics are the fallback). */
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://connect:8083" }).optional(),
  auth: z.object({ username: z.string().min(1), password: z.string().min(1) }).strict().optional(),
  /** Sent as `Authorization: Bearer <token>`; give it as `${ENV}`. */
  bearerToken: z.string().min(1).optional(),
  /** Extra request headers, e.g. an API gateway's key (values as `${ENV}` when secret). */
  headers: z.record(z.string(), z.string().regex(/^[^\r\n]*$/, "a header value must be one line")).optional(),
  /** CA and client certificate (mutual TLS) for an https:// url; same settings as a cluster's tls. */
  tls: tlsObjectSchema.optional(),
  timeoutMs: z.number().int().positive().default(5000),
  internalTopics: internalTopicsSchema.optional(),
  /**
   * The workers' offset.flush.interval.ms (Connect's default 60000): MM2's position on Connect moves only that
   * often, so TASK_STALLED waits at least twice this where the position comes from Connect alone. Connect's REST
   * API does not expose worker settings: set it when the workers flush less often.
   */
  offsetFlushIntervalMs: z.number().int().positive().optional(),
}).strict().superRefine((connect, ctx) => {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });
  if (connect.url === undefined) {
    if (connect.internalTopics === undefined) {
      issue(["url"], "give url (Connect's REST API, e.g. http://connect:8083) or internalTopics (cluster, configs, offsets, status), or both");
    }
    for (const key of ["auth", "bearerToken", "headers", "tls"] as const) {
      if (connect[key] !== undefined) issue([key], `${key} is for the REST API: give url too, or remove ${key}`);
    }
    return;
  }
  const url = URL.parse(connect.url);
  const basic = connect.auth !== undefined || (url !== null && (url.username !== "" || url.password !== ""));
  if (basic && connect.bearerToken !== undefined) issue(["bearerToken"], "give auth (basic) or bearerToken, not both: each is the Authorization header");
  if (connect.tls !== undefined && url !== null && url.protocol !== "https:") issue(["tls"], "tls needs an https:// url");
  for (const name of Object.keys(connect.headers ?? {})) {
    if (!headerName.test(name)) issue(["headers", name], "must be an HTTP header name (letters, digits and -, no spaces)");
    else if (reservedHeaders.has(name.toLowerCase())) {
      const instead = name.toLowerCase() === "authorization" ? "; use auth or bearerToken" : "";
      issue(["headers", name], `Gapwatch sets ${name} itself${instead}`);
    }
  }
}).transform(moveUrlUserInfoToAuth);

/**
 * `http://user:pass@connect:8083` becomes url `http://connect:8083` with basic auth (an explicit `auth` wins):
 * fetch refuses URLs with credentials, and the URL is shown and logged, so it must never carry them.
 */
function moveUrlUserInfoToAuth<T extends { url?: string; auth?: { username: string; password: string } }>(connect: T): T {
  if (connect.url === undefined) return connect;
  const url = new URL(connect.url);
  if (url.username === "" && url.password === "") return connect;
  const auth = connect.auth ?? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  url.username = "";
  url.password = "";
  return { ...connect, url: url.toString().replace(/\/$/, ""), auth };
}

/**
 * Per-flow settings, keyed by flow id `<source>-><target>`. `replicationPolicy` tells Gapwatch how
 * a flow names its remote topics when MM2 runs a `replication.policy.class` it does not know
 * (it then behaves like MM2's Default or Identity policy); it wins over what Connect says.
 */
const flowOverrideSchema = z.object({
  /**
   * Recovery point objective: the failover readiness verdict is "degraded" while the oldest record
   * not yet copied (or the newest heartbeat) is older. Default: thresholds.lagSeconds.
   */
  rpoSeconds: z.number().positive().optional(),
  replicationPolicy: z.object({
    kind: z.enum(["default", "identity"]),
    /** `replication.policy.separator`; default: the connector's, else ".". */
    separator: z.string().min(1).optional(),
  }).strict().optional(),
  /**
   * The flow is retired on purpose: once Connect no longer lists its source connectors Gapwatch stops keeping it
   * (no MM2_CONNECTOR_MISSING). A flow whose connectors Connect lists is watched whatever this says.
   */
  retired: z.boolean().optional(),
}).strict();

/** A regular expression given as text; the config is refused when it does not compile. */
const regexSchema = z.string().min(1).refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, "must be a valid regular expression");

/** Defaults of `metrics`: with them a scrape stays under 1 MB (about 150 bytes per topic, 200 per partition). */
export const defaultMetricsLimits = { topicSeriesLimit: 4_000, partitionSeriesLimit: 1_000 };

/**
 * Prometheus series (lib/alerts/metrics.ts): flow topics get series of their own (those that need
 * attention first), at most `topicSeriesLimit`; a partition only when it lags past
 * thresholds.lagRecords / lagSeconds, an open alert or risk names it, or its topic is listed in
 * `partitionSeriesTopics` — at most `partitionSeriesLimit`, worst first.
 */
const metricsSchema = z.object({
  topicSeriesLimit: z.number().int().min(0).default(defaultMetricsLimits.topicSeriesLimit),
  partitionSeriesLimit: z.number().int().min(0).default(defaultMetricsLimits.partitionSeriesLimit),
  /** Topics whose partitions always get series (within the limit); each regex must match the whole name. */
  partitionSeriesTopics: z.array(regexSchema).default([]),
}).strict();

/**
 * The content audit (lib/audit): each cycle a few source records per flow are compared by SHA-256 hashes of key,
 * value, headers and timestamp with the target records Gapwatch maps them to. `exclude`: source topics (regexes
 * matching the whole name) never audited. `ignoreHeaders`: header keys left out of the comparison on both sides —
 * MM2 copies headers unchanged (MirrorSourceTask.convertHeaders), so list here what a transform on MM2 adds.
 */
const auditSchema = z.object({
  // Opt-in until it has run through the whole integration suite and the chaos soak (proved quiet only in its own test).
  enabled: z.boolean().default(false),
  recordsPerFlowPerMinute: z.number().int().min(1).max(100_000).default(200),
  exclude: z.array(regexSchema).default([]),
  ignoreHeaders: z.array(z.string()).default([]),
}).strict();

/**
 * Where history, alerts and detector memory live. `sqlite` (default): one file on this machine — `path`, else
 * GAPWATCH_DB, else `<GAPWATCH_HOME or .gapwatch>/gapwatch.db`. `postgres`: a server several Gapwatch processes
 * share — `url` (postgres://user:password@host:5432/db), usually `url: ${GAPWATCH_DATABASE_URL}`.
 * Messages never repeat the url: it may hold a password.
 */
const storeSchema = z.object({
  kind: z.enum(["sqlite", "postgres"]).default("sqlite"),
  path: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
}).strict().superRefine((store, ctx) => {
  const issue = (key: "path" | "url", message: string) => ctx.addIssue({ code: "custom", path: [key], message });
  if (store.kind === "postgres") {
    if (store.url === undefined) {
      issue("url", "store kind postgres needs a url: set `url: ${GAPWATCH_DATABASE_URL}` and export GAPWATCH_DATABASE_URL=postgres://user:password@host:5432/gapwatch");
    } else if (!/^postgres(ql)?:\/\//.test(store.url)) {
      issue("url", "the store url must start with postgres:// or postgresql://");
    }
    if (store.path !== undefined) issue("path", "path is for store kind sqlite; a postgres store takes only url");
  } else if (store.url !== undefined) {
    issue("url", "url is for store kind postgres; set `kind: postgres` or remove url");
  }
});

const flowOverridesSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_.-]+->[A-Za-z0-9_.-]+$/, "a flow id is <source alias>-><target alias>"),
  flowOverrideSchema,
);

export const configSchema = z.object({
  clusters: z.array(clusterSchema).min(1, "list at least one Kafka cluster"),
  connect: z.array(connectSchema).default([]),
  /** Seconds between poll cycles. */
  pollIntervalSeconds: z.number().min(1).max(3600).default(10),
  /** Topic configs are refreshed every N cycles (they change rarely). */
  configRefreshCycles: z.number().int().min(1).default(30),
  /** Detector thresholds (lib/detect/thresholds.ts); omitted keys take their defaults. */
  thresholds: thresholdsSchema.strict().default(thresholdsSchema.parse({})),
  /** Per-flow overrides (see flowOverrideSchema). */
  flows: flowOverridesSchema.default({}),
  store: storeSchema.default({ kind: "sqlite" }),
  admin: z.object({ secret: z.string().min(12, "the admin secret must be at least 12 characters").optional() }).strict().default({}),
  server: serverSchema.prefault({}),
  audit: auditSchema.default({ enabled: false, recordsPerFlowPerMinute: 200, exclude: [], ignoreHeaders: [] }),
  metrics: metricsSchema.default({ ...defaultMetricsLimits, partitionSeriesTopics: [] }),
  notifications: z.object({
    webhooks: z.array(z.object({ url: z.url(), format: z.enum(["json", "slack", "alertmanager", "alertmanager-api"]).default("json") }).strict()).default([]),
  }).strict().default({ webhooks: [] }),
  scaleOut: scaleOutSchema.optional(),
}).strict().superRefine((config, ctx) => {
  const seen = new Set<string>();
  config.clusters.forEach((c, i) => {
    if (seen.has(c.alias)) ctx.addIssue({ code: "custom", path: ["clusters", i, "alias"], message: `alias "${c.alias}" is listed twice` });
    seen.add(c.alias);
  });
  config.connect.forEach((c, i) => {
    const cluster = c.internalTopics?.cluster;
    if (cluster !== undefined && !seen.has(cluster)) {
      const known = [...seen].map((a) => `"${a}"`).join(", ");
      const message = `cluster "${cluster}" is not in clusters (${known})`;
      ctx.addIssue({ code: "custom", path: ["connect", i, "internalTopics", "cluster"], message });
    }
  });
  if (config.scaleOut && !seen.has(config.scaleOut.homeCluster)) {
    const known = [...seen].map((a) => `"${a}"`).join(", ");
    ctx.addIssue({ code: "custom", path: ["scaleOut", "homeCluster"], message: `home cluster "${config.scaleOut.homeCluster}" is not in clusters (${known})` });
  }
});

/** The config as validated, before the TLS files it names are read (what `npm run init` checks). */
export type ParsedConfig = z.infer<typeof configSchema>;
/** A cluster of the loaded config: its `tls` holds the material read from the files (lib/config/tls.ts). */
export type ClusterConfig = Omit<z.infer<typeof clusterSchema>, "tls"> & { tls?: boolean | TlsMaterial };
export type ConnectConfig = Omit<z.infer<typeof connectSchema>, "tls"> & { tls?: TlsMaterial };
/** The loaded config (loadConfigFile / parseConfigText). */
export type GapwatchConfig = Omit<ParsedConfig, "clusters" | "connect"> & { clusters: ClusterConfig[]; connect: ConnectConfig[] };
export type FlowOverrides = z.infer<typeof flowOverridesSchema>;
export type AuditConfig = z.infer<typeof auditSchema>;
