import { NextResponse, type NextRequest } from "next/server";
import { allowedHostPatterns, isHostAllowed } from "@/lib/auth/allowed-hosts";
import { mayRead, readSessionCookie } from "@/lib/auth/session";
import { getConfig } from "@/lib/config";
import { readEnv } from "@/lib/config/env";
import { errorCodes } from "@/lib/errors";
import { requestPathHeader } from "@/lib/views/not-found";

/** Reachable without an identity when server.requireSignInForReads is on: the sign-in page and its API. */
const openPaths = new Set(["/signin", "/api/session"]);
/**
 * The orchestrator's probes: answered before every other check. A kubelet or load balancer addresses the pod by its
 * IP (not an allowed host name) and signs in as nobody; the answers hold no data (status, cycle number, age, reason).
 */
const probePaths = new Set(["/api/health/live", "/api/health/ready"]);
/** All a collector (GAPWATCH_ROLE=collector) serves: it polls; web instances serve pages and the API. */
const collectorPaths = new Set(["/api/health", "/api/metrics"]);

/**
 * Runs before every page and API route (Next.js 16 proxy, Node runtime). The probes (/api/health/live and /ready)
 * pass unchecked, in every role. Its checks:
 * 1. the Host header must be one the server answers to (server.allowedHosts): a DNS-rebinding page reaches us under
 *    its own domain name, so it is refused with 421 before it can read or try admin secrets;
 * 2. a path with a malformed percent-escape (`/api/flows/%E0%A4%A`) is 400: Next.js's router answers it with a bare
 *    500 when it decodes the route's parameters (seen under `npm run hardening`'s load);
 * 3. a collector (GAPWATCH_ROLE=collector) answers only /api/health and /api/metrics; anything else is 503;
 * 4. with server.requireSignInForReads, a request without a session or trusted-proxy user is sent to /signin
 *    (pages) or answered 401 (API); a session cookie that does not verify is 401 too.
 */
export function proxy(request: NextRequest): NextResponse {
  if (probePaths.has(request.nextUrl.pathname)) return NextResponse.next();
  const server = getConfig().server;
  const host = request.headers.get("host");
  if (!isHostAllowed(host, allowedHostPatterns(server))) {
    const error = `host "${host ?? ""}" is not served here; add it to server.allowedHosts in the Gapwatch config`;
    return NextResponse.json({ error, code: errorCodes.forbidden }, { status: 421, headers: { "cache-control": "no-store" } });
  }
  const path = request.nextUrl.pathname;
  if (!isDecodablePath(path)) {
    const error = `the path ${JSON.stringify(path)} has a malformed percent-escape: encode "%" as %25 and each byte as %XX`;
    return NextResponse.json({ error, code: errorCodes.badRequest }, { status: 400, headers: { "cache-control": "no-store" } });
  }
  if (readEnv().GAPWATCH_ROLE === "collector" && !collectorPaths.has(path)) {
    const error = `this Gapwatch process runs with GAPWATCH_ROLE=collector: it polls and serves only /api/health and /api/metrics; open a web instance (GAPWATCH_ROLE=web) for ${path}`;
    return NextResponse.json({ error, code: errorCodes.notThisRole }, { status: 503, headers: { "cache-control": "no-store" } });
  }
  if (!server.requireSignInForReads || openPaths.has(path) || mayRead(request.headers, request.cookies)) return forwardWithPath(request, path);
  if (path.startsWith("/api/")) {
    const invalid = readSessionCookie(request.cookies) === "invalid";
    const error = invalid ? "the session cookie is not valid (expired, signed out or malformed); sign in again" : "sign in first: this server requires it for reads";
    return NextResponse.json({ error, code: errorCodes.unauthorized }, { status: 401, headers: { "cache-control": "no-store" } });
  }
  const signin = new URL("/signin", request.url);
  signin.searchParams.set("next", `${path}${request.nextUrl.search}`);
  return NextResponse.redirect(signin, 303);
}

/** Passes the request on with its path in a header (set here, whatever the client sent): see requestPathHeader. */
function forwardWithPath(request: NextRequest, path: string): NextResponse {
  const headers = new Headers(request.headers);
  headers.set(requestPathHeader, path);
  return NextResponse.next({ request: { headers } });
}

function isDecodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|logo.svg).*)"],
};
