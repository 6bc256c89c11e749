import http from "node:http";
import https from "node:https";
import { type TlsMaterial, toNodeTlsOptions } from "@/lib/tls";

/** One HTTP exchange with Connect: what was sent and what came back (status and body text). */
export interface HttpExchange {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  tls?: TlsMaterial;
}

/** Raised when no answer came: `code` is Node's (ECONNREFUSED, an OpenSSL code…) or "TIMEOUT". */
export class HttpTransportError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HttpTransportError";
    this.code = code;
  }
}

/** Agents by TLS material: one keep-alive pool per configured Connect, not a TLS handshake per request. */
const agents = new Map<string, https.Agent>();

function agentFor(tls: TlsMaterial | undefined): https.Agent | undefined {
  if (tls === undefined) return undefined;
  const key = JSON.stringify(tls);
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new https.Agent({ ...toNodeTlsOptions(tls), keepAlive: true, maxSockets: 4 });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * Sends one request with node:http(s) (Node's global fetch takes no CA or client certificate) and resolves with the
 * status and body text of any answer, 4xx/5xx included; rejects with HttpTransportError when none came in time.
 */
export function sendHttp(exchange: HttpExchange): Promise<{ status: number; text: string }> {
  const url = new URL(exchange.url);
  const secure = url.protocol === "https:";
  const length = exchange.body === undefined ? {} : { "content-length": String(Buffer.byteLength(exchange.body)) };
  const headers = { ...exchange.headers, ...length };
  return new Promise((resolve, reject) => {
    const options = { method: exchange.method, headers, signal: AbortSignal.timeout(exchange.timeoutMs) };
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (err) => reject(toTransportError(err, exchange.timeoutMs)));
    };
    const req = secure
      ? https.request(url, { ...options, agent: agentFor(exchange.tls) }, onResponse)
      : http.request(url, options, onResponse);
    req.on("error", (err) => reject(toTransportError(err, exchange.timeoutMs)));
    req.end(exchange.body);
  });
}

function toTransportError(err: Error, timeoutMs: number): HttpTransportError {
  if (err.name === "AbortError" || err.name === "TimeoutError") {
    return new HttpTransportError(`no answer within ${timeoutMs} ms`, "TIMEOUT", { cause: err });
  }
  const code = (err as NodeJS.ErrnoException).code;
  return new HttpTransportError(code ? `${code} ${err.message}` : err.message, code, { cause: err });
}
