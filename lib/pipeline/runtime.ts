import { type AlertService, createAlertService } from "@/lib/alerts/alert-service";
import { Collector } from "@/lib/collector/collector";
import { getConfig, type GapwatchConfig } from "@/lib/config";
import { ConfigError } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import { createPostgresStore, createSqliteStore, resolveStorePath, type Store } from "@/lib/store";
import { CyclePipeline } from "./cycle-pipeline";

interface Runtime {
  collector: Collector;
  store: Store;
  alerts: AlertService;
  pipeline: CyclePipeline;
}

const holder = globalThis as typeof globalThis & { __gapwatchRuntime?: Runtime };

/**
 * The server's one collector, pipeline and store, created on first use and cached on globalThis so that
 * dev hot reload does not start a second loop (after taxonomy's lib/db.ts).
 */
export function getRuntime(): Runtime {
  if (!holder.__gapwatchRuntime) {
    const config = getConfig();
    const store = openStore(config.store);
    const collector = new Collector(config, store);
    const alerts = createAlertService(store, config);
    const pipeline = new CyclePipeline(config, store, alerts, collector);
    collector.onCycle(async (current, previous, history) => {
      await pipeline.runCycle(current, previous, history);
    });
    holder.__gapwatchRuntime = { collector, store, alerts, pipeline };
  }
  return holder.__gapwatchRuntime;
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

/** Starts the collector loop with the server and stops it cleanly on SIGTERM/SIGINT. */
export function startRuntime(): void {
  const runtime = getRuntime();
  runtime.collector.start();
  const stop = async (signal: string) => {
    getLogger("runtime").info({ signal }, "stopping");
    await runtime.collector.stop();
    runtime.alerts.stop();
    await runtime.store.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
