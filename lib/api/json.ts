import { BadRequestError, GapwatchError, httpStatusOf } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import { stripUrlUserInfo } from "@/lib/logger/redact";

/** JSON.stringify that writes bigint offsets as decimal strings (the API's int64 rule). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

export function jsonResponse(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonTextResponse(toJson(value), status, headers);
}

/** A JSON answer already serialized (model-answers.ts keeps them per cycle). */
export function jsonTextResponse(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } });
}

/**
 * Runs a route handler body: typed errors become `{error, code}` with their HTTP status (400 for
 * bad parameters, 503 while there is no data yet, …); anything else is logged and answered 500.
 */
export async function handleRoute(body: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await body();
  } catch (err) {
    const status = httpStatusOf(err);
    // Messages can quote URLs (a Connect or database error): never with their user-info.
    if (err instanceof GapwatchError) return jsonResponse({ error: stripUrlUserInfo(err.message), code: err.code }, status);
    getLogger("api").error({ err: err instanceof Error ? err.message : String(err) }, "route failed");
    return jsonResponse({ error: "internal error; see the server log" }, 500);
  }
}

/** Parses an optional epoch-millisecond or ISO time query parameter. */
export function parseTimeParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
  const n = /^\d+$/.test(raw) ? Number(raw) : iso.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(n)) throw new BadRequestError(`query parameter "${name}" must be epoch milliseconds or an ISO date, got "${raw}"`);
  return n;
}
