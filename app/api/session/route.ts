import { z } from "zod";
import { handleRoute, jsonResponse } from "@/lib/api/json";
import { UnauthorizedError } from "@/lib/auth/errors";
import { assertSameOriginJson } from "@/lib/auth/origin";
import { readClientAddress } from "@/lib/auth/proxy-auth";
import { buildClearedSessionCookie, buildSessionCookie, readIdentity, readRequestCookies, readSessionCookie, signIn, signOut } from "@/lib/auth/session";
import { getSignInLimiter } from "@/lib/auth/sign-in-limiter";
import { getConfig } from "@/lib/config";
import { BadRequestError, errorCodes } from "@/lib/errors";

export const dynamic = "force-dynamic";

const bodySchema = z.union([z.object({ action: z.literal("signout") }).strict(), z.object({ secret: z.string().min(1).max(1024) }).strict()]);

/**
 * GET /api/session — who this request is: `{"role": "admin"|"viewer"|null, "via": "session"|"proxy"|null}`;
 * 401 when it sends a session cookie that is not valid (malformed, expired, signed out, or from a rotated secret).
 */
export function GET(request: Request) {
  return handleRoute(() => {
    const cookies = readRequestCookies(request);
    if (readSessionCookie(cookies) === "invalid") throw new UnauthorizedError("the session cookie is not valid (expired, signed out or malformed); sign in again");
    const identity = readIdentity(request.headers, cookies);
    return jsonResponse({ role: identity?.role ?? null, via: identity?.via ?? null, user: identity?.user ?? null });
  });
}

/**
 * POST /api/session — `{"secret": "…"}` signs in as admin (sets the HttpOnly session cookie);
 * `{"action": "signout"}` signs out and revokes the session. Same-origin JSON only (403 otherwise); wrong secret →
 * 401; after 5 wrong secrets from one client address each further attempt waits twice as long (1 s … 15 min):
 * 429 with Retry-After (seconds) until then.
 */
export async function POST(request: Request) {
  return handleRoute(async () => {
    assertSameOriginJson(request.headers);
    const parsed = bodySchema.safeParse(await request.json().catch(() => null));
    if (!parsed.success) throw new BadRequestError('body must be {"secret": "<admin secret>"} or {"action": "signout"}');
    if ("action" in parsed.data) return await signedOut(request);
    const limiter = getSignInLimiter();
    const address = readClientAddress(request.headers, getConfig().server.proxyAuth);
    const now = Date.now();
    const waitMs = limiter.waitMs(address, now);
    if (waitMs > 0) return tooManyAttempts(waitMs);
    let token: string;
    try {
      token = signIn(parsed.data.secret, now);
    } catch (err) {
      if (err instanceof UnauthorizedError) limiter.recordFailure(address, now);
      throw err;
    }
    limiter.recordSuccess(address);
    return jsonResponse({ signedIn: true, role: "admin" }, 200, { "set-cookie": buildSessionCookie(token, request) });
  });
}

/** DELETE /api/session — signs out and revokes the session (same-origin only). */
export async function DELETE(request: Request) {
  return handleRoute(async () => {
    assertSameOriginJson(request.headers);
    return await signedOut(request);
  });
}

async function signedOut(request: Request): Promise<Response> {
  await signOut(readRequestCookies(request));
  return jsonResponse({ signedIn: false }, 200, { "set-cookie": buildClearedSessionCookie(request) });
}

function tooManyAttempts(waitMs: number): Response {
  const seconds = Math.ceil(waitMs / 1000);
  const error = `too many wrong admin secrets from this address; try again in ${seconds} s`;
  return jsonResponse({ error, code: errorCodes.rateLimited }, 429, { "retry-after": String(seconds) });
}
