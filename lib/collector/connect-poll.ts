import type { ConnectConfig } from "@/lib/config";
import { getConnectors, toConnectEndpoint } from "@/lib/connect";
import { describeError } from "./cluster-poll";
import type { ConnectTopicsRead } from "./connect-topics";
import type { ConnectClusterSnapshot } from "./types";

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
 * the previous cycle's connectors and the age of that data.
 */
export function selectConnectSnapshot(
  config: ConnectConfig,
  rest: RestPoll | null,
  topics: { read: ConnectTopicsRead | null; error: string | null } | null,
  previous: ConnectClusterSnapshot | null,
  now: number,
): ConnectClusterSnapshot {
  const base = { name: config.name, url: config.url ?? null };
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
    };
  }
  const restError = rest === null ? "no url configured: Connect's REST API is not used" : rest.error;
  if (config.internalTopics && topics) {
    return {
      ...base,
      source: "internal-topics",
      internalTopics: { ...config.internalTopics },
      restError,
      reachable: topics.read !== null && topics.error === null,
      error: topics.error,
      dataAt: topics.read?.readAt ?? previous?.dataAt ?? null,
      connectors: topics.read?.connectors ?? previous?.connectors ?? [],
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
  };
}
