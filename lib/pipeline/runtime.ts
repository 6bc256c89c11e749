import { type AlertService, createAlertService } from "@/lib/alerts/alert-service";
import { Collector } from "@/lib/collector/collector";
import { getConfig } from "@/lib/config";
import { getLogger } from "@/lib/logger";
import { createSqliteStore, resolveStorePath, type Store } from "@/lib/store";
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
    const store = createSqliteStore(resolveStorePath(config.store.path));
    const collector = new Collector(config, store);
    const alerts = createAlertService(store, config);
    const pipeline = new CyclePipeline(config, store, alerts);
    collector.onCycle((current, previous, history) => {
      pipeline.processCycle(current, previous, history);
    });
    holder.__gapwatchRuntime = { collector, store, alerts, pipeline };
  }
  return holder.__gapwatchRuntime;
}

/** Starts the collector loop with the server and stops it cleanly on SIGTERM/SIGINT. */
export function startRuntime(): void {
  const runtime = getRuntime();
  runtime.collector.start();
  const stop = async (signal: string) => {
    getLogger("runtime").info({ signal }, "stopping");
    await runtime.collector.stop();
    runtime.alerts.stop();
    runtime.store.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
