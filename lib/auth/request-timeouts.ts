import type http from "node:http";

/**
 * Slow clients (slowloris): Node's HTTP server closes a connection whose request headers are not complete within
 * `headersTimeout` (default 60 s) or whose whole request is not received within `requestTimeout` (default 300 s),
 * checked every `connectionsCheckingInterval` (30 s) — so a client sending a byte every few seconds held a socket
 * for up to 90 s. `next start` creates the server and offers only --keepAliveTimeout; these are set on the server
 * itself when its first connection arrives (client-address.ts's hook), which Node supports after createServer.
 */
export const headersTimeoutMs = 10_000;
export const requestTimeoutMs = 30_000;
const checkEveryMs = 1000;

const limited = Symbol.for("gapwatch.requestTimeouts");
/** Node sets connectionsCheckingInterval on the server from its options; @types/node declares it as an option only. */
type LimitedServer = http.Server & { [limited]?: true; connectionsCheckingInterval: number };

/** Applies the timeouts to `server` once, and checks them every second (Node's own check, re-armed). */
export function limitSlowClients(server: http.Server): void {
  const target = server as LimitedServer;
  if (target[limited]) return;
  target[limited] = true;
  target.headersTimeout = headersTimeoutMs;
  target.requestTimeout = requestTimeoutMs;
  target.connectionsCheckingInterval = checkEveryMs;
  // Node started its checker at 'listening' with the interval of then; its listener clears and restarts it
  // (lib/_http_server.js setupConnectionsTracking). Without it (another Node), the timeouts hold at the old interval.
  const rearm = server.listeners("listening").find((l) => l.name === "setupConnectionsTracking");
  if (server.listening) rearm?.call(server);
}
