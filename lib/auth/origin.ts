import { ForbiddenError } from "./errors";

/**
 * CSRF protection for state-changing routes. Browsers always send `Origin` on cross-site POSTs
 * (and on same-origin fetch POSTs); when a proxy strips it we fall back to `Referer`. Either must
 * name this very host, else 403. Requiring `content-type: application/json` as well means a
 * plain HTML form on another site cannot forge the request (that content type needs a CORS
 * preflight, which we never grant).
 */
export function assertSameOrigin(headers: Headers): void {
  const host = headers.get("host");
  const claimed = headers.get("origin") ?? headers.get("referer");
  if (!host) throw new ForbiddenError("request has no Host header");
  if (!claimed || claimed === "null") throw new ForbiddenError("cross-site request refused: send an Origin (or Referer) header for this host");
  let claimedHost: string;
  try {
    claimedHost = new URL(claimed).host;
  } catch {
    throw new ForbiddenError(`cross-site request refused: unreadable Origin "${claimed}"`);
  }
  if (claimedHost.toLowerCase() !== host.toLowerCase()) {
    throw new ForbiddenError(`cross-site request refused: Origin ${claimedHost} does not match host ${host}`);
  }
}

/** State-changing routes take JSON only (see assertSameOrigin for why). */
export function assertJsonBody(headers: Headers): void {
  const type = headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ForbiddenError(`state-changing requests must send content-type: application/json (got "${type || "none"}")`);
  }
}

/** Both checks, in the order every state-changing route runs them. */
export function assertSameOriginJson(headers: Headers): void {
  assertSameOrigin(headers);
  assertJsonBody(headers);
}
