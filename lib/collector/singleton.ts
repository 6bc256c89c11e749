import { type AlertService, attachAlerting } from "@/lib/alerts/alert-service";
import { getConfig } from "@/lib/config";
import { getLogger } from "@/lib/logger";
import { createTranslationFindingSource } from "@/lib/translation/finding-source";
import { attachTranslationRecorder } from "@/lib/translation/record-cycle";
import { createSqliteStore, resolveStorePath, type Store } from "@/lib/store";
import { Collector } from "./collector";

interface Runtime {
  collector: Collector;
  store: Store;
  alerts: AlertService;
}

const holder = globalThis as typeof globalThis & { __gapwatchRuntime?: Runtime };

/**
 * The server's one collector and store, created on first use and cached on globalThis so that
 * dev hot reload does not start a second loop (after taxonomy's lib/db.ts).
 */
export function getRuntime(): Runtime {
  if (!holder.__gapwatchRuntime) {
    const config = getConfig();
    const store = createSqliteStore(resolveStorePath(config.store.path));
    const collector = new Collector(config, store);
    // Order matters: the recorder translates each cycle before alerting reads its translations.
    const translations = attachTranslationRecorder(collector, store);
    const alerts = attachAlerting(collector, store, config, [createTranslationFindingSource(translations, store)]);
    holder.__gapwatchRuntime = { collector, store, alerts };
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
