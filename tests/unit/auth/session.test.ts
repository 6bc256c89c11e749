import { describe, expect, it, vi } from "vitest";
import { ForbiddenError, UnauthorizedError } from "@/lib/auth/errors";
import { buildClearedSessionCookie, buildSessionCookie, readSession, requireAdmin, sessionCookieName, signIn } from "@/lib/auth/session";
import { createSessionToken } from "@/lib/auth/token";

const secret = "unit-test-admin-secret";
vi.mock("@/lib/config", () => ({ getConfig: () => ({ admin: { secret: "unit-test-admin-secret" } }) }));

const now = 1_800_000_000_000;
const restartRequest = (h: Record<string, string>, url = "http://localhost:3070/api/x") =>
  new Request(url, { method: "POST", headers: { host: "localhost:3070", origin: "http://localhost:3070", "content-type": "application/json", ...h } });

describe("requireAdmin", () => {
  it("answers 403 for a foreign Origin even with a valid session", () => {
    const cookie = `${sessionCookieName}=${createSessionToken(secret, now)}`;
    expect(() => requireAdmin(restartRequest({ origin: "https://evil.example", cookie }), now)).toThrow(ForbiddenError);
  });

  it("answers 403 for a non-JSON body", () => {
    expect(() => requireAdmin(restartRequest({ "content-type": "application/x-www-form-urlencoded" }), now)).toThrow(ForbiddenError);
  });

  it("answers 401 without a session cookie, or with an expired or forged one", () => {
    expect(() => requireAdmin(restartRequest({}), now)).toThrow(UnauthorizedError);
    const expired = createSessionToken(secret, now - 9 * 60 * 60 * 1000);
    expect(() => requireAdmin(restartRequest({ cookie: `${sessionCookieName}=${expired}` }), now)).toThrow(UnauthorizedError);
    const forged = createSessionToken("not-the-admin-secret", now);
    expect(() => requireAdmin(restartRequest({ cookie: `${sessionCookieName}=${forged}` }), now)).toThrow(UnauthorizedError);
  });

  it("returns the session for a same-origin JSON request with a valid cookie among others", () => {
    const cookie = `theme=dark; ${sessionCookieName}=${createSessionToken(secret, now)}; other=1`;
    expect(requireAdmin(restartRequest({ cookie }), now)).toMatchObject({ role: "admin" });
  });
});

describe("signIn and readSession", () => {
  it("issues a token for the right secret that readSession accepts", () => {
    const token = signIn(secret, now);
    expect(readSession({ get: (n) => (n === sessionCookieName ? { value: token } : undefined) }, now)).toMatchObject({ role: "admin" });
  });

  it("refuses a wrong secret with 401", () => {
    expect(() => signIn("wrong-secret-value", now)).toThrow(UnauthorizedError);
  });

  it("reads no session when there is no cookie", () => {
    expect(readSession({ get: () => undefined }, now)).toBeNull();
  });
});

describe("session cookie", () => {
  it("is HttpOnly and SameSite=Strict, lasts 8 h, and is Secure only over https", () => {
    const plain = buildSessionCookie("tok", new Request("http://localhost:3070/api/session"));
    expect(plain).toContain("HttpOnly");
    expect(plain).toContain("SameSite=Strict");
    expect(plain).toContain("Max-Age=28800");
    expect(plain).not.toContain("Secure");
    expect(buildSessionCookie("tok", new Request("https://gapwatch.example/api/session"))).toContain("Secure");
    expect(buildSessionCookie("tok", new Request("http://internal/api/session", { headers: { "x-forwarded-proto": "https" } }))).toContain("Secure");
  });

  it("is cleared with Max-Age=0", () => {
    expect(buildClearedSessionCookie(new Request("http://localhost/api/session"))).toMatch(new RegExp(`^${sessionCookieName}=;.*Max-Age=0`));
  });
});
