import { connectionsApiChannel, protocolAPIsById } from "@platformatic/kafka";
import type { RequestCount } from "./types";

/** A broker address with its node id, as Metadata reports it. */
export interface KnownBroker {
  nodeId: number;
  host: string;
  port: number;
}

/** Raw tallies: how many requests of an API key went to a host:port. */
export type RawRequestTally = Map<string, { apiKey: number; address: string; count: number }>;

/**
 * Counts the requests one reader sends, per API and broker, from platformatic's diagnostics
 * channel `tracing:plt:kafka:connections:api:start`, which `Connection` publishes once per request
 * as it writes it to the socket (ApiVersions and SASL requests included). A reader's connections
 * carry the reader's `context` object (platformatic passes the client's `context` option to every
 * pool and connection), so other clients in the process are not counted.
 */
export class RequestCounter {
  readonly #context: object;
  readonly #tally: RawRequestTally = new Map();
  readonly #onStart = (message: unknown): void => {
    const event = readApiEvent(message);
    if (event && event.context === this.#context) addToTally(this.#tally, event.apiKey, event.address);
  };

  constructor(context: object) {
    this.#context = context;
    connectionsApiChannel.start.subscribe(this.#onStart);
  }

  /** Counts so far, with host:port resolved to node ids through `brokers`. */
  counts(brokers: Iterable<KnownBroker>): RequestCount[] {
    return summarizeTally(this.#tally, brokers);
  }

  reset(): void {
    this.#tally.clear();
  }

  /** Stops listening; counts stay readable. */
  dispose(): void {
    connectionsApiChannel.start.unsubscribe(this.#onStart);
  }
}

/** Narrows a diagnostics message to the fields we count; null for anything else. */
export function readApiEvent(message: unknown): { context: unknown; apiKey: number; address: string } | null {
  if (typeof message !== "object" || message === null) return null;
  const { connection, apiKey, operation } = message as { connection?: unknown; apiKey?: unknown; operation?: unknown };
  if (operation !== "send" || typeof apiKey !== "number" || typeof connection !== "object" || connection === null) return null;
  const { context, host, port } = connection as { context?: unknown; host?: unknown; port?: unknown };
  return { context, apiKey, address: `${String(host)}:${String(port)}` };
}

/** Adds one request to a tally. */
export function addToTally(tally: RawRequestTally, apiKey: number, address: string): void {
  const key = `${apiKey}@${address}`;
  const entry = tally.get(key);
  if (entry) entry.count += 1;
  else tally.set(key, { apiKey, address, count: 1 });
}

/**
 * Turns a tally into rows named by Kafka API name and broker id. An address that matches no
 * known broker (a bootstrap alias such as "localhost:9092") stays as host:port. Rows are sorted
 * by API, then broker.
 */
export function summarizeTally(tally: RawRequestTally, brokers: Iterable<KnownBroker>): RequestCount[] {
  const idByAddress = new Map<string, string>();
  for (const b of brokers) idByAddress.set(`${b.host}:${b.port}`, String(b.nodeId));
  const rows = new Map<string, RequestCount>();
  for (const { apiKey, address, count } of tally.values()) {
    const api = protocolAPIsById[apiKey] ?? `ApiKey${apiKey}`;
    const broker = idByAddress.get(address) ?? address;
    const key = `${api}@${broker}`;
    const row = rows.get(key);
    if (row) row.count += count;
    else rows.set(key, { api, broker, count });
  }
  return [...rows.values()].sort((a, b) => a.api.localeCompare(b.api) || a.broker.localeCompare(b.broker));
}
