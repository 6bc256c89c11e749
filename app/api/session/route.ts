import { z } from "zod";
import { handleRoute, jsonResponse } from "@/lib/api/json";
import { assertSameOriginJson } from "@/lib/auth/origin";
import { buildClearedSessionCookie, buildSessionCookie, signIn } from "@/lib/auth/session";
import { BadRequestError } from "@/lib/errors";

export const dynamic = "force-dynamic";

const bodySchema = z.union([z.object({ action: z.literal("signout") }).strict(), z.object({ secret: z.string().min(1).max(1024) }).strict()]);

/**
 * POST /api/session — `{"secret": "…"}` signs in as admin (sets the HttpOnly session cookie);
 * `{"action": "signout"}` signs out. Same-origin JSON only (403 otherwise); wrong secret → 401.
 */
export async function POST(request: Request) {
  return handleRoute(async () => {
    assertSameOriginJson(request.headers);
    const parsed = bodySchema.safeParse(await request.json().catch(() => null));
    if (!parsed.success) throw new BadRequestError('body must be {"secret": "<admin secret>"} or {"action": "signout"}');
    if ("action" in parsed.data) return signedOut(request);
    const token = signIn(parsed.data.secret);
    return jsonResponse({ signedIn: true, role: "admin" }, 200, { "set-cookie": buildSessionCookie(token, request) });
  });
}

/** DELETE /api/session — signs out (same-origin only). */
export async function DELETE(request: Request) {
  return handleRoute(() => {
    assertSameOriginJson(request.headers);
    return signedOut(request);
  });
}

function signedOut(request: Request): Response {
  return jsonResponse({ signedIn: false }, 200, { "set-cookie": buildClearedSessionCookie(request) });
}
