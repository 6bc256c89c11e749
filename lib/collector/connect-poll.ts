import type { ConnectConfig } from "@/lib/config";
import { getConnectors } from "@/lib/connect";
import { ConnectorState, type Connector } from "@/lib/connect/types";
import { describeError } from "./cluster-poll";
import type { ConnectClusterSnapshot } from "./types";

/** States in which a connector or task copies nothing although nobody paused or stopped it (and it did not fail). */
const notRunningStates: ReadonlySet<string> = new Set([ConnectorState.UNASSIGNED, ConnectorState.RESTARTING]);

/** Connect's default offset.flush.interval.ms (WorkerConfig.OFFSET_COMMIT_INTERVAL_MS_DEFAULT). */
const defaultOffsetFlushIntervalMs = 60_000;

/** One cycle's read of one Connect cluster: all connectors with status and config in one request. */
export async function pollConnect(config: ConnectConfig, previous: ConnectClusterSnapshot | null, now: number): Promise<ConnectClusterSnapshot> {
  const flush = { offsetFlushIntervalMs: config.offsetFlushIntervalMs ?? defaultOffsetFlushIntervalMs };
  try {
    const connectors = await getConnectors({ url: config.url, auth: config.auth, timeoutMs: config.timeoutMs });
    const notRunningSince = trackNotRunning(connectors, previous?.notRunningSince ?? {}, now);
    return { name: config.name, url: config.url, reachable: true, error: null, dataAt: now, connectors, notRunningSince, ...flush };
  } catch (err) {
    return {
      name: config.name,
      url: config.url,
      reachable: false,
      error: describeError(err),
      dataAt: previous?.dataAt ?? null,
      connectors: previous?.connectors ?? [],
      notRunningSince: previous?.notRunningSince ?? {},
      ...flush,
    };
  }
}

/**
 * Since when each connector and task has been UNASSIGNED or RESTARTING: the time of the first cycle that saw it so,
 * kept while every cycle since saw it not running (either state: a task bounced between them is still not running).
 */
export function trackNotRunning(connectors: readonly Connector[], previous: Readonly<Record<string, number>>, now: number): Record<string, number> {
  const since: Record<string, number> = {};
  for (const c of connectors) {
    if (notRunningStates.has(c.state)) since[c.name] = previous[c.name] ?? now;
    for (const t of c.tasks) {
      const key = `${c.name}|${t.id}`;
      if (notRunningStates.has(t.state)) since[key] = previous[key] ?? now;
    }
  }
  return since;
}
