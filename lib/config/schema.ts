import { z } from "zod";
import { scaleOutSchema } from "./scale-out";
import { serverSchema } from "./server";
import { thresholdsSchema } from "./thresholds";

/**
 * The shape of gapwatch.config.yaml. Secrets are given as `${ENV_VAR}` references and resolved
 * from the environment before validation (see load.ts), so the file itself can be committed.
 */
const bootstrapSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter((s) => s.length > 0))
  .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, "each bootstrap server must be host:port")).min(1, "give at least one bootstrap server"));

const tlsSchema = z.union([
  z.boolean(),
  z.object({
    ca: z.string().optional(),
    cert: z.string().optional(),
    key: z.string().optional(),
    rejectUnauthorized: z.boolean().default(true),
  }).strict(),
]);

const saslSchema = z.object({
  mechanism: z.enum(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]),
  username: z.string().min(1),
  password: z.string().min(1),
}).strict();

export const clusterSchema = z.object({
  /** The alias MM2 uses for this cluster (source.cluster.alias / target.cluster.alias). */
  alias: z.string().regex(/^[A-Za-z0-9_.-]+$/, "alias may hold letters, digits, '.', '_' and '-' only"),
  bootstrap: bootstrapSchema,
  tls: tlsSchema.optional(),
  sasl: saslSchema.optional(),
}).strict();

export const connectSchema = z.object({
  name: z.string().min(1),
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://connect:8083" }),
  auth: z.object({ username: z.string().min(1), password: z.string().min(1) }).strict().optional(),
  timeoutMs: z.number().int().positive().default(5000),
  /**
   * The workers' offset.flush.interval.ms (Connect's default 60000): MM2's position on Connect moves only that
   * often, so TASK_STALLED waits at least twice this where the position comes from Connect alone. Connect's REST
   * API does not expose worker settings: set it when the workers flush less often.
   */
  offsetFlushIntervalMs: z.number().int().positive().optional(),
}).strict().transform(moveUrlUserInfoToAuth);

/**
 * `http://user:pass@connect:8083` becomes url `http://connect:8083` with basic auth (an explicit `auth` wins):
 * fetch refuses URLs with credentials, and the URL is shown and logged, so it must never carry them.
 */
function moveUrlUserInfoToAuth<T extends { url: string; auth?: { username: string; password: string } }>(connect: T): T {
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
  if (config.scaleOut && !seen.has(config.scaleOut.homeCluster)) {
    const known = [...seen].map((a) => `"${a}"`).join(", ");
    ctx.addIssue({ code: "custom", path: ["scaleOut", "homeCluster"], message: `home cluster "${config.scaleOut.homeCluster}" is not in clusters (${known})` });
  }
});

export type GapwatchConfig = z.infer<typeof configSchema>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type ConnectConfig = z.infer<typeof connectSchema>;
export type FlowOverrides = z.infer<typeof flowOverridesSchema>;
export type AuditConfig = z.infer<typeof auditSchema>;
