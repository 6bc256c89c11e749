import { beforeEach, describe, expect, it, vi } from "vitest";
import { sessionCookieName } from "@/lib/auth/session";
import { getSignInLimiter } from "@/lib/auth/sign-in-limiter";
import { withPeerRequest } from "./peer-request";

vi.mock("@/lib/config", () => ({ getConfig: () => ({ admin: { secret: "route-test-admin-secret" }, server: { requireSignInForReads: false } }) }));

const { GET, POST } = await import("@/app/api/session/route");

const headers = { host: "localhost:3315", origin: "http://localhost:3315", "content-type": "application/json" };
const post = (body: unknown, extra: Record<string, string> = {}) =>
  withPeerRequest("http://localhost:3315/api/session", { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) }, POST);

describe("/api/session", () => {
  beforeEach(() => getSignInLimiter().recordSuccess("127.0.0.1"));

  it("answers 429 with Retry-After after 5 wrong secrets from one address; the right one then waits too", async () => {
    for (let i = 0; i < 5; i++) expect((await post({ secret: `wrong-secret-${i}` })).status).toBe(401);
    expect((await post({ secret: "wrong-secret-5" })).status).toBe(401);
    const limited = await post({ secret: "route-test-admin-secret" });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBe(1);
    expect(await limited.json()).toEqual({ error: "too many wrong admin secrets from this address; try again in 1 s", code: "GW_RATE_LIMITED" });
    expect(limited.headers.get("set-cookie")).toBeNull();
  });

  it("signs in, and signing out revokes the cookie: GET then answers 401", async () => {
    const signedIn = await post({ secret: "route-test-admin-secret" });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith(`${sessionCookieName}=v1.`)).toBe(true);
    const before = await GET(new Request("http://localhost:3315/api/session", { headers: { cookie } }));
    expect([before.status, await before.json()]).toEqual([200, { role: "admin", via: "session", user: null }]);
    const out = await post({ action: "signout" }, { cookie });
    expect([out.status, out.headers.get("set-cookie")]).toEqual([200, `${sessionCookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`]);
    const after = await GET(new Request("http://localhost:3315/api/session", { headers: { cookie } }));
    expect(after.status).toBe(401);
    expect(((await after.json()) as { code: string }).code).toBe("GW_UNAUTHORIZED");
  });

  it("answers GET with a malformed cookie 401, and without one 200 with no role", async () => {
    const malformed = await GET(new Request("http://localhost:3315/api/session", { headers: { cookie: `${sessionCookieName}=%E0%A4%A` } }));
    expect(malformed.status).toBe(401);
    const none = await GET(new Request("http://localhost:3315/api/session"));
    expect([none.status, await none.json()]).toEqual([200, { role: null, via: null, user: null }]);
  });
});
