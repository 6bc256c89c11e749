import { getLogger } from "@/lib/logger";
import { configPath } from "./env";
import { loadConfigFile } from "./load";
import type { GapwatchConfig } from "./schema";

export type { AuditConfig, ClusterConfig, ConnectConfig, FlowOverrides, GapwatchConfig } from "./schema";
export { loadConfigFile, parseConfigText } from "./load";
export { configPath, readEnv } from "./env";

const holder = globalThis as typeof globalThis & { __gapwatchConfig?: GapwatchConfig };

/** The server's config, loaded once from GAPWATCH_CONFIG (cached on globalThis across hot reloads). */
export function getConfig(): GapwatchConfig {
  if (!holder.__gapwatchConfig) {
    const file = configPath();
    holder.__gapwatchConfig = loadConfigFile(file);
    getLogger("config").info({ file, clusters: holder.__gapwatchConfig.clusters.map((c) => c.alias) }, "config loaded");
  }
  return holder.__gapwatchConfig;
}
