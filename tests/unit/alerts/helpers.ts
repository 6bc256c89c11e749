/**
 * Alert test helpers: alert records with overrides, and a real local HTTP server that records the
 * webhooks it receives and answers as each test scripts it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AlertRecord, AlertTransition } from "@/lib/alerts/types";

export const T = Date.UTC(2025, 0, 15, 3, 0, 0);

/** A firing DATA_LOSS alert. */
export function makeAlert(overrides: Partial<AlertRecord> = {}): AlertRecord {
  return {
    id: "0123456789abcdef",
    key: "DATA_LOSS|east->west|orders|2|1200",
    type: "DATA_LOSS",
    severity: "critical",
    state: "firing",
    acknowledged: null,
    flow: "east->west",
    cluster: "east",
    topic: "orders",
    partition: 2,
    group: null,
    summary: "500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)",
    evidence: { firstLostOffset: "1200", lastLostOffset: "1699", lostCount: "500" },
    firstSeen: T,
    lastSeen: T,
    resolvedAt: null,
    ...overrides,
  };
}

/** A transition of a `makeAlert` alert. */
export function makeTransition(type: AlertTransition["type"] = "fired", overrides: Partial<AlertRecord> = {}): AlertTransition {
  return { type, alert: makeAlert(overrides) };
}

/** One request the server received. */
export interface ReceivedRequest {
  at: number;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** How the server answers request number `n` (0-based); return null to never answer. */
export type Responder = (n: number, res: ServerResponse) => void | null;

/** Starts a webhook receiver on 127.0.0.1 with a random port. */
export async function startReceiver(respond: Responder) {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ at: Date.now(), path: req.url ?? "", headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown });
      respond(received.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Replies with a status and a small body. */
export function reply(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "try later");
}

/** A logger that keeps what it was given, to assert on warnings and errors. */
export function createMemoryLogger() {
  const entries: { level: "warn" | "error"; fields: object; message: string }[] = [];
  return {
    entries,
    warn: (fields: object, message: string) => void entries.push({ level: "warn", fields, message }),
    error: (fields: object, message: string) => void entries.push({ level: "error", fields, message }),
  };
}
