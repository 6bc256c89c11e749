import { type AlertService, createAlertService } from "@/lib/alerts/alert-service";
import { acknowledgeAlert } from "@/lib/alerts/reconcile-alerts";
import type { AlertRecord, RiskRecord } from "@/lib/alerts/types";
import { Collector } from "@/lib/collector/collector";
import { getConfig, type GapwatchConfig } from "@/lib/config";
import { type GapwatchRole, readRole } from "@/lib/config/role";
import { ConfigError } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import { createPostgresStore, createSqliteStore, resolveStorePath, type Store } from "@/lib/store";
import { CyclePipeline } from "./cycle-pipeline";
import { PublishedReadModels, publishReadModel } from "./published-read-models";
import type { ReadModel } from "./read-model";

/** The alerts pages and routes read and act on, in every role. */
export interface AlertReader {
  list(filter?: { state?: string; type?: string; flow?: string }): AlertRecord[];
  risks(): RiskRecord[];
  /** The acknowledged alert, or null when there is no alert with this id. */
  acknowledge(id: string, by: string, now: number): Promise<AlertRecord | null>;
}

/** What pages and routes read, in every role: the store, the latest read model, the alerts. */
export interface ServingRuntime {
  role: GapwatchRole;
  store: Store;
  models: { latest(): ReadModel | null };
  alerts: AlertReader;
}

/** A process that polls (roles all and collector): its collector, pipeline and alert service. */
interface Runtime extends ServingRuntime {
  collector: Collector;
  alerts: AlertService;
  pipeline: CyclePipeline;
}

/** A web instance: the read models collectors published to the shared store. */
interface WebRuntime extends ServingRuntime {
  published: PublishedReadModels;
}

/** The collector's shard key until collectors share shards (issue 13 item 3): one collector polls everything. */
const wholeShard = "all";

const holder = globalThis as typeof globalThis & { __gapwatchRuntime?: Runtime; __gapwatchWebRuntime?: WebRuntime };

/**
 * The server's one collector, pipeline and store, created on first use and cached on globalThis so that
 * dev hot reload does not start a second loop (after taxonomy's lib/db.ts). Roles all and collector only: a web
 * instance polls nothing (getServingRuntime is what pages use in every role).
 */
export function getRuntime(): Runtime {
  if (!holder.__gapwatchRuntime) {
    const config = getConfig();
    const role = readRole(config.store);
    if (role === "web") throw new ConfigError("GAPWATCH_ROLE=web polls nothing: this process has no collector or pipeline");
    holder.__gapwatchRuntime = createCollectingRuntime(config, role);
  }
  return holder.__gapwatchRuntime;
}

/** What pages and routes read: this process's pipeline (roles all, collector) or the store's published models (web). */
export function getServingRuntime(): ServingRuntime {
  const config = getConfig();
  if (readRole(config.store) !== "web") return getRuntime();
  holder.__gapwatchWebRuntime ??= createWebRuntime(openStore(config.store));
  return holder.__gapwatchWebRuntime;
}

/** A polling runtime; a collector publishes each cycle's read model to the store for the web instances. */
export function createCollectingRuntime(config: GapwatchConfig, role: "all" | "collector"): Runtime {
  if (config.scaleOut !== undefined) {
    // Said at start, so that nobody runs several collectors believing they split the work (README: scaleOut).
    getLogger("runtime").warn({ homeCluster: config.scaleOut.homeCluster }, "scaleOut is not in effect yet: this collector polls every flow; run one collector");
  }
  const store = openStore(config.store);
  const collector = new Collector(config, store);
  const alerts = createAlertService(store, config);
  const pipeline = new CyclePipeline(config, store, alerts, collector);
  collector.onCycle(async (current, previous, history) => {
    const model = await pipeline.runCycle(current, previous, history);
    if (role === "collector") await publishReadModel(store, wholeShard, model);
  });
  return { role, collector, store, alerts, pipeline, models: pipeline };
}

/**
 * A web runtime: serves the published read models; an acknowledgement is queued in the store for the collector
 * that holds the alert (it applies it at its next cycle, and the pages show it once that cycle is published).
 */
export function createWebRuntime(store: Store): WebRuntime {
  const published = new PublishedReadModels(store);
  const alertsOf = () => published.latest()?.alerts ?? [];
  return {
    role: "web",
    store,
    published,
    models: published,
    alerts: {
      list: (filter = {}) =>
        alertsOf()
          .filter((a) => (!filter.state || a.state === filter.state) && (!filter.type || a.type === filter.type) && (!filter.flow || a.flow === filter.flow))
          .sort((a, b) => b.lastSeen - a.lastSeen),
      risks: () => [...(published.latest()?.risks ?? [])].sort((a, b) => a.key.localeCompare(b.key)),
      acknowledge: async (id, by, now) => {
        const alert = alertsOf().find((a) => a.id === id);
        if (alert === undefined) return null;
        await store.requestAcknowledgement({ alertId: id, by, at: now });
        return acknowledgeAlert([alert], id, by, now)[0] ?? null;
      },
    },
  };
}

/** The configured store: PostgreSQL (shared by several processes) or the SQLite file of this machine. */
function openStore(config: GapwatchConfig["store"]): Store {
  if (config.kind === "postgres") {
    // The config schema requires a url for postgres; this guards the type, never a silent fall-back to SQLite.
    if (config.url === undefined) throw new ConfigError("store kind postgres needs store.url");
    return createPostgresStore(config.url);
  }
  return createSqliteStore(resolveStorePath(config.path));
}

/**
 * Starts this role's loop with the server — the collector (all, collector) or the read of published models (web) —
 * and stops it cleanly on SIGTERM/SIGINT.
 */
export function startRuntime(): void {
  const serving = getServingRuntime();
  const stopLoop = serving.role === "web" ? startWebLoop() : startCollectorLoop();
  getLogger("runtime").info({ role: serving.role }, "started");
  const stop = async (signal: string) => {
    getLogger("runtime").info({ signal }, "stopping");
    await stopLoop();
    await serving.store.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

function startCollectorLoop(): () => Promise<void> {
  const runtime = getRuntime();
  runtime.collector.start();
  return async () => {
    await runtime.collector.stop();
    runtime.alerts.stop();
  };
}

function startWebLoop(): () => Promise<void> {
  const published = holder.__gapwatchWebRuntime!.published;
  published.start();
  return () => published.stop();
}
