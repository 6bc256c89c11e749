import { getConfig } from "@/lib/config";
import { ForbiddenError, UnauthorizedError } from "./errors";
import { assertSameOriginJson } from "./origin";
import { readProxyIdentity, type Identity } from "./proxy-auth";
import { isSessionRevoked, revokeSession } from "./revocation";
import { constantTimeEqual, createSessionToken, sessionLifetimeMs, verifySessionToken, type SessionClaims } from "./token";

export type { SessionClaims } from "./token";

export const sessionCookieName = "gapwatch_session";

/** Anything with `get(name)` like Next's `cookies()` or `NextRequest.cookies`. */
export interface CookieReader {
  get(name: string): { value: string } | undefined;
}

/** The configured admin secret, or null when admin actions are disabled. */
export function readAdminSecret(): string | null {
  return getConfig().admin.secret ?? null;
}

/**
 * What the session cookie says: none sent, a valid admin session, or "invalid" (malformed, forged, expired, signed
 * out, or signed with a rotated secret) — which callers that need a session answer with 401, never 500.
 */
export function readSessionCookie(cookies: CookieReader, now = Date.now()): SessionClaims | "none" | "invalid" {
  const token = cookies.get(sessionCookieName)?.value;
  if (!token) return "none";
  const secret = readAdminSecret();
  const claims = secret ? verifySessionToken(token, secret, now) : null;
  return claims && !isSessionRevoked(claims.sessionId, claims.expiresAt) ? claims : "invalid";
}

/** The admin session carried by the cookies, or null (no cookie, bad signature, expired, revoked, no secret). */
export function readSession(cookies: CookieReader, now = Date.now()): SessionClaims | null {
  const state = readSessionCookie(cookies, now);
  return typeof state === "string" ? null : state;
}

/** Parses a `Cookie` header; a value that is not valid percent-encoding is kept as sent (it then fails to verify). */
export function readRequestCookies(request: Request): CookieReader {
  const jar = new Map<string, string>();
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) jar.set(part.slice(0, eq).trim(), decodeCookieValue(part.slice(eq + 1).trim()));
  }
  return { get: (name) => (jar.has(name) ? { value: jar.get(name)! } : undefined) };
}

function decodeCookieValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Who the request is: an admin session cookie, else the user a trusted proxy names (server.proxyAuth), else null. */
export function readIdentity(headers: Headers, cookies: CookieReader, now = Date.now()): Identity | null {
  if (readSession(cookies, now)) return { role: "admin", via: "session", user: null };
  return readProxyIdentity(headers, getConfig().server.proxyAuth);
}

/**
 * Guard for admin route handlers: same-origin JSON request (else ForbiddenError, 403), then an admin — by session
 * or trusted proxy — (else 401, or 403 for a proxy-named viewer). The CSRF check comes first so a foreign site
 * learns nothing about the session.
 */
export function requireAdmin(request: Request, now = Date.now()): Identity {
  assertSameOriginJson(request.headers);
  const identity = readIdentity(request.headers, readRequestCookies(request), now);
  if (identity?.role === "admin") return identity;
  if (!readAdminSecret() && !getConfig().server.proxyAuth) {
    throw new ForbiddenError("admin actions are disabled: set admin.secret in the Gapwatch config");
  }
  if (identity) throw new ForbiddenError(`user "${identity.user ?? "?"}" is a viewer; admin actions need the admin role`);
  throw new UnauthorizedError();
}

/** Ends the session the cookies carry (if valid), so the same cookie sent again is refused, after a restart too. */
export async function signOut(cookies: CookieReader, now = Date.now()): Promise<void> {
  const session = readSession(cookies, now);
  if (session) await revokeSession(session.sessionId, session.expiresAt, now);
}

/** Checks a sign-in attempt against the admin secret (constant time); returns a new token or throws. */
export function signIn(candidate: string, now = Date.now()): string {
  const secret = readAdminSecret();
  if (!secret) throw new ForbiddenError("admin sign-in is disabled: set admin.secret in the Gapwatch config");
  if (!constantTimeEqual(candidate, secret)) throw new UnauthorizedError("wrong admin secret");
  return createSessionToken(secret, now);
}

/** True when the request arrived over https (directly or via a TLS-terminating proxy). */
function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** `Set-Cookie` value for a new session: HttpOnly, SameSite=Strict, Secure over https, 8 h. */
export function buildSessionCookie(token: string, request: Request): string {
  const attrs = [`${sessionCookieName}=${token}`, "Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${Math.floor(sessionLifetimeMs / 1000)}`];
  if (isHttps(request)) attrs.push("Secure");
  return attrs.join("; ");
}

/** `Set-Cookie` value that removes the session. */
export function buildClearedSessionCookie(request: Request): string {
  const attrs = [`${sessionCookieName}=`, "Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=0"];
  if (isHttps(request)) attrs.push("Secure");
  return attrs.join("; ");
}

/** Whether this request may read data: always, unless server.requireSignInForReads asks for an identity. */
export function mayRead(headers: Headers, cookies: CookieReader, now = Date.now()): boolean {
  return !getConfig().server.requireSignInForReads || readIdentity(headers, cookies, now) !== null;
}

/** Whether this request may act (restart tasks, acknowledge alerts): an admin session or a proxy-named admin. */
export function isAdmin(headers: Headers, cookies: CookieReader, now = Date.now()): boolean {
  return readIdentity(headers, cookies, now)?.role === "admin";
}
