import { getConfig } from "@/lib/config";
import { ForbiddenError, UnauthorizedError } from "./errors";
import { assertSameOriginJson } from "./origin";
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

/** The admin session carried by the cookies, or null (no cookie, bad signature, expired, no secret configured). */
export function readSession(cookies: CookieReader, now = Date.now()): SessionClaims | null {
  const token = cookies.get(sessionCookieName)?.value;
  if (!token) return null;
  const secret = readAdminSecret();
  return secret ? verifySessionToken(token, secret, now) : null;
}

/** Parses the `Cookie` header of a route handler's request. */
export function readRequestCookies(request: Request): CookieReader {
  const jar = new Map<string, string>();
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) jar.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
  }
  return { get: (name) => (jar.has(name) ? { value: jar.get(name)! } : undefined) };
}

/**
 * Guard for admin route handlers: same-origin JSON request (else ForbiddenError, 403), then a
 * valid session (else UnauthorizedError, 401). The CSRF check comes first so a foreign site
 * learns nothing about the session.
 */
export function requireAdmin(request: Request, now = Date.now()): SessionClaims {
  assertSameOriginJson(request.headers);
  if (!readAdminSecret()) throw new ForbiddenError("admin actions are disabled: set admin.secret in the Gapwatch config");
  const session = readSession(readRequestCookies(request), now);
  if (!session) throw new UnauthorizedError();
  return session;
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
