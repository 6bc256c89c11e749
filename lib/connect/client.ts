import { ConnectApiError } from "@/lib/errors";
import { stripUrlUserInfo } from "@/lib/logger/redact";
import { explainTlsFailure, hasClientCertificate, type TlsMaterial } from "@/lib/tls";
import { HttpTransportError, sendHttp } from "./transport";

export interface ConnectEndpoint {
  url: string;
  /** Basic auth for the Connect REST API, if it needs one. */
  auth?: { username: string; password: string };
  /** Sent as `Authorization: Bearer <token>` (Confluent RBAC, an OAuth proxy); never together with `auth`. */
  bearerToken?: string;
  /** Extra request headers (e.g. an API gateway's key). */
  headers?: Record<string, string>;
  /** CA and client certificate for an https:// URL (mutual TLS). */
  tls?: TlsMaterial;
  timeoutMs?: number;
}

/**
 * The only place that performs HTTP against Kafka Connect. Sets a timeout (default 5 s) and treats any status but
 * 2xx as an error. Errors say which URL failed and how; they never carry credentials, tokens or header values.
 */
export async function requestConnect<T>(endpoint: ConnectEndpoint, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${endpoint.url.replace(/\/+$/, "")}${path}`;
  // Errors name the URL; they reach /api/health, pages and logs, so never with credentials in it.
  const shown = stripUrlUserInfo(url);
  const timeoutMs = endpoint.timeoutMs ?? 5000;
  let response: { status: number; text: string };
  try {
    response = await sendHttp({
      url,
      method,
      headers: requestHeaders(endpoint, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
      tls: endpoint.tls,
    });
  } catch (err) {
    const reason = err instanceof HttpTransportError ? describeTransportError(err, endpoint) : String(err);
    throw new ConnectApiError(shown, null, `Kafka Connect ${method} ${shown} failed: ${stripUrlUserInfo(reason)}`, { cause: err });
  }
  const { status, text } = response;
  if (status < 200 || status > 299) {
    const hint = explainStatus(status, endpoint, text);
    throw new ConnectApiError(shown, status, `Kafka Connect ${method} ${shown} answered ${status}: ${summarizeBody(text)}${hint}`);
  }
  if (text.length === 0) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ConnectApiError(shown, status, `Kafka Connect ${method} ${shown} returned a body that is not JSON: ${summarizeBody(text)}`, { cause: err });
  }
}

/**
 * The Connect endpoint of a configured Connect cluster: everything the requests need, not its name.
 */
export function toConnectEndpoint(c: ConnectEndpoint): ConnectEndpoint {
  return { url: c.url, auth: c.auth, bearerToken: c.bearerToken, headers: c.headers, tls: c.tls, timeoutMs: c.timeoutMs };
}

/** The request's headers: configured extras first, so that they cannot replace accept, content type or authorization. */
export function requestHeaders(endpoint: ConnectEndpoint, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...endpoint.headers, accept: "application/json" };
  if (hasBody) headers["content-type"] = "application/json";
  if (endpoint.auth) {
    headers.authorization = `Basic ${Buffer.from(`${endpoint.auth.username}:${endpoint.auth.password}`).toString("base64")}`;
  } else if (endpoint.bearerToken) {
    headers.authorization = `Bearer ${endpoint.bearerToken}`;
  }
  return headers;
}

function describeTransportError(err: HttpTransportError, endpoint: ConnectEndpoint): string {
  if (err.code === "HPE_INVALID_CONSTANT") {
    return `the answer is not HTTP: is this an HTTPS port given an http:// url? (${err.message})`;
  }
  const hint = explainTlsFailure(err.code, "tls", hasClientCertificate(endpoint.tls));
  // OpenSSL's own message holds its source file and line: the code says it all.
  return hint ? `${hint} (${err.code})` : err.message;
}

/**
 * 401/403 from Connect or a proxy in front of it: say which credential it was given (never its value). 400 "Invalid
 * SNI": Connect's Jetty refuses a request whose host its certificate does not list, whatever tls.verifyHostname says.
 */
function explainStatus(status: number, endpoint: ConnectEndpoint, text: string): string {
  if (status === 400 && text.includes("Invalid SNI")) {
    return " (Connect's HTTPS listener refuses a host name its certificate does not list: use a name it lists in the url)";
  }
  if (status !== 401 && status !== 403) return "";
  const given = endpoint.auth ? "basic auth" : endpoint.bearerToken ? "a bearer token" : "no credentials";
  return ` (Gapwatch sent ${given}; check auth or bearerToken of this connect entry)`;
}

function summarizeBody(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: string };
    if (parsed.message) return parsed.message;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, 300) || "(empty body)";
}
