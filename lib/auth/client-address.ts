import { randomBytes } from "node:crypto";
import http from "node:http";
import { isIP } from "node:net";
import { limitSlowClients } from "./request-timeouts";
import { constantTimeEqual } from "./token";

/**
 * The peer address of a request. `next start` hands route handlers and the proxy a Request without its socket, and
 * fills `x-forwarded-for` from the socket only when the client sent none — so that header is the client's word.
 * `installPeerAddressStamp` (called once from instrumentation.ts) makes Node's HTTP server write the socket's address
 * into `x-gapwatch-peer` on every request, overwriting whatever the client sent, prefixed with a random per-process
 * stamp: a value without the stamp (sent by a client, or a request that arrived before the hook) is no address.
 * The same hook shortens the server's header and request timeouts (request-timeouts.ts).
 */
export const peerHeader = "x-gapwatch-peer";

/** Kept on the HTTP server prototype it patches, so a module loaded twice (dev reload) finds the one stamp. */
const stampKey = Symbol.for("gapwatch.peerStamp");
type StampedPrototype = typeof http.Server.prototype & { [stampKey]?: string };
const serverPrototype = http.Server.prototype as StampedPrototype;

export function installPeerAddressStamp(): void {
  if (serverPrototype[stampKey]) return;
  const stamp = randomBytes(16).toString("hex");
  serverPrototype[stampKey] = stamp;
  const emit = serverPrototype.emit;
  serverPrototype.emit = function stampPeer(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    // The first connection of each server: headers within 10 s, the whole request within 30 s (request-timeouts.ts).
    if (event === "connection") limitSlowClients(this);
    if (event === "request") {
      const request = args[0] as http.IncomingMessage;
      request.headers[peerHeader] = `${stamp} ${request.socket.remoteAddress ?? ""}`;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  };
}

/** The socket address stamped on the request (IPv4-mapped IPv6 as plain IPv4), or null when unknown. */
export function readPeerAddress(headers: Headers): string | null {
  const stamp = serverPrototype[stampKey];
  const value = headers.get(peerHeader);
  if (!stamp || !value) return null;
  const [given, address] = value.split(" ");
  return given !== undefined && constantTimeEqual(given, stamp) && address ? normalizeAddress(address) : null;
}

/** `::ffff:10.0.0.1` → `10.0.0.1`; anything that is not an IP address → null. */
export function normalizeAddress(text: string): string | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  const address = mapped ? mapped[1]! : trimmed;
  return isIP(address) === 0 ? null : address.toLowerCase();
}
