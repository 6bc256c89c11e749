import type { ConnectConfig } from "@/lib/config";
import { getConnectors, toConnectEndpoint } from "@/lib/connect";
import { ConnectorState, type Connector } from "@/lib/connect/types";
import { describeError } from "./cluster-poll";
import type { ConnectTopicsRead } from "./connect-topics";
import type { ConnectClusterSnapshot } from "./types";

/** States in which a connector or task copies nothing although nobody paused or stopped it (and it did not fail). */
const notRunningStates: ReadonlySet<string> = new Set([ConnectorState.UNASSIGNED, ConnectorState.RESTARTING]);

/** Connect's default offset.flush.interval.ms (WorkerConfig.OFFSET_COMMIT_INTERVAL_MS_DEFAULT). */
const defaultOffsetFlushIntervalMs = 60_000;

/** One cycle's read of a Connect cluster's REST API: all connectors with status and config in one request. */
export type RestPoll = { ok: true; connectors: ConnectClusterSnapshot["connectors"] } | { ok: false; error: string };

/** Reads the REST API when the config gives a url; null without one. */
export async function pollConnectRest(config: ConnectConfig): Promise<RestPoll | null> {
  if (config.url === undefined) return null;
  try {
    const connectors = await getConnectors(toConnectEndpoint({ ...config, url: config.url }));
    return { ok: true, connectors };
  } catch (err) {
    return { ok: false, error: describeError(err) };
  }
}

/**
 * The Connect cluster's part of the snapshot: from REST when it answered; else, when `internalTopics` is configured,
 * from Connect's own topics (connect-topics.ts), with `restError` saying why REST was not used; else unreachable with
 * the previous cycle's connectors and the age of that data. Not-running clocks advance only on connectors read
 * this cycle.
 */
export function selectConnectSnapshot(
  config: ConnectConfig,
  rest: RestPoll | null,
  topics: { read: ConnectTopicsRead | null; error: string | null } | null,
  previous: ConnectClusterSnapshot | null,
  now: number,
): ConnectClusterSnapshot {
  const base = {
    name: config.name,
    url: config.url ?? null,
    offsetFlushIntervalMs: config.offsetFlushIntervalMs ?? defaultOffsetFlushIntervalMs,
  };
  const heldSince = previous?.notRunningSince ?? {};
  if (rest?.ok) {
    return {
      ...base,
      source: "rest",
      internalTopics: null,
      restError: null,
      reachable: true,
      error: null,
      dataAt: now,
      connectors: rest.connectors,
      notRunningSince: trackNotRunning(rest.connectors, heldSince, now),
    };
  }
  const restError = rest === null ? "no url configured" : rest.error;
  if (config.internalTopics && topics) {
    const read = topics.read;
    return {
      ...base,
      source: "internal-topics",
      internalTopics: { ...config.internalTopics },
      restError,
      reachable: read !== null && topics.error === null,
      error: topics.error,
      dataAt: read?.readAt ?? previous?.dataAt ?? null,
      connectors: read?.connectors ?? previous?.connectors ?? [],
      notRunningSince: read !== null && topics.error === null ? trackNotRunning(read.connectors, heldSince, now) : heldSince,
    };
  }
  return {
    ...base,
    source: "rest",
    internalTopics: null,
    restError,
    reachable: false,
    error: restError,
    dataAt: previous?.dataAt ?? null,
    connectors: previous?.connectors ?? [],
    notRunningSince: heldSince,
  };
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
