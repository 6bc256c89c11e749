import { ConnectApiError } from "@/lib/errors";
import { stripUrlUserInfo } from "@/lib/logger/redact";

export interface ConnectEndpoint {
  url: string;
  /** Basic auth for the Connect REST API, if it needs one. */
  auth?: { username: string; password: string };
  timeoutMs?: number;
}

/**
 * The only place that performs HTTP against Kafka Connect. Sets a timeout (default 5 s) and checks
 * `response.ok` because fetch does not reject on 4xx/5xx. Errors say which URL failed and how.
 */
export async function requestConnect<T>(endpoint: ConnectEndpoint, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${endpoint.url.replace(/\/+$/, "")}${path}`;
  // Errors name the URL; they reach /api/health, pages and logs, so never with credentials in it.
  const shown = stripUrlUserInfo(url);
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (endpoint.auth) {
    headers.authorization = `Basic ${Buffer.from(`${endpoint.auth.username}:${endpoint.auth.password}`).toString("base64")}`;
  }
  const timeoutMs = endpoint.timeoutMs ?? 5000;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      cache: "no-store",
    });
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : describeFetchError(err);
    throw new ConnectApiError(shown, null, `Kafka Connect ${method} ${shown} failed: ${stripUrlUserInfo(reason)}`, { cause: err });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new ConnectApiError(shown, response.status, `Kafka Connect ${method} ${shown} answered ${response.status}: ${summarizeBody(text)}`);
  }
  if (text.length === 0) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ConnectApiError(shown, response.status, `Kafka Connect ${method} ${shown} returned a body that is not JSON: ${summarizeBody(text)}`, { cause: err });
  }
}

function describeFetchError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ? `${cause.code} ${cause.message ?? ""}`.trim() : err.message;
  }
  return String(err);
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
