import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Signed session tokens, pure (the caller passes the secret and `now`, so expiry is testable).
 *
 * Format: `v1.<expiresAtMs>.<nonce>.<signature>`, signature = base64url(HMAC-SHA256(key, "v1.<exp>.<nonce>")).
 * The HMAC key is derived from the admin secret (HMAC of a fixed label) so the secret itself is
 * never used directly as a MAC key, and rotating the secret invalidates every session.
 */
export const sessionLifetimeMs = 8 * 60 * 60 * 1000;
const version = "v1";

export interface SessionClaims {
  role: "admin";
  expiresAt: number;
  /** The token's nonce: what sign-out revokes (lib/auth/revocation.ts). */
  sessionId: string;
}

function deriveKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("gapwatch session signing key v1").digest();
}

function sign(secret: string, payload: string): string {
  return createHmac("sha256", deriveKey(secret)).update(payload).digest("base64url");
}

/** Compares two strings in time independent of where they differ (length leaks, content does not). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHmac("sha256", "gapwatch-compare").update(a).digest();
  const right = createHmac("sha256", "gapwatch-compare").update(b).digest();
  // Comparing fixed-length digests hides the length too; the final check rules out collisions.
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** A new admin session token valid for 8 h from `now`. */
export function createSessionToken(secret: string, now: number, lifetimeMs = sessionLifetimeMs): string {
  const payload = `${version}.${now + lifetimeMs}.${randomBytes(16).toString("base64url")}`;
  return `${payload}.${sign(secret, payload)}`;
}

/** The claims of a token signed with `secret` and not expired at `now`; null otherwise. */
export function verifySessionToken(token: string, secret: string, now: number): SessionClaims | null {
  const parts = token.split(".");
  if (parts.length !== 4 || parts[0] !== version) return null;
  const [, exp, nonce, signature] = parts as [string, string, string, string];
  if (!/^\d{1,15}$/.test(exp) || !/^[A-Za-z0-9_-]{1,64}$/.test(nonce)) return null;
  if (!constantTimeEqual(signature, sign(secret, `${version}.${exp}.${nonce}`))) return null;
  const expiresAt = Number(exp);
  if (expiresAt <= now) return null;
  return { role: "admin", expiresAt, sessionId: nonce };
}
