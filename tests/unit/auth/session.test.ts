import { describe, expect, it, vi } from "vitest";
import { ForbiddenError, UnauthorizedError } from "@/lib/auth/errors";
import {
  buildClearedSessionCookie,
  buildSessionCookie,
  isAdmin,
  mayRead,
  readRequestCookies,
  readSession,
  readSessionCookie,
  requireAdmin,
  sessionCookieName,
  signIn,
  signOut,
} from "@/lib/auth/session";
import { createSessionToken } from "@/lib/auth/token";
import type { ProxyAuthConfig } from "@/lib/config/server";
import { withPeerRequest } from "./peer-request";

const secret = "unit-test-admin-secret";
const config = vi.hoisted(() => ({ admin: { secret: "unit-test-admin-secret" as string | undefined }, server: { requireSignInForReads: false, proxyAuth: undefined as ProxyAuthConfig | undefined } }));
vi.mock("@/lib/config", () => ({ getConfig: () => config }));

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
    expect(requireAdmin(restartRequest({ cookie }), now)).toEqual({ role: "admin", via: "session", user: null });
  });

  it("answers 401, not 500, for cookies that are not valid percent-encoding or not tokens", () => {
    for (const bad of ["%E0%A4%A", "%", "v1.%ZZ.x.y", "a".repeat(5000), "v1.1.<script>.sig"]) {
      expect(() => requireAdmin(restartRequest({ cookie: `${sessionCookieName}=${bad}` }), now)).toThrow(UnauthorizedError);
      expect(readSessionCookie(readRequestCookies(restartRequest({ cookie: `${sessionCookieName}=${bad}` })), now)).toBe("invalid");
    }
  });

  it("accepts an admin named by a trusted proxy, answers 403 for its viewers, and ignores untrusted peers", async () => {
    config.server.proxyAuth = { trustedProxies: ["127.0.0.1"], userHeader: "x-forwarded-user", rolesHeader: "x-forwarded-groups", adminRole: "gapwatch-admin", adminUsers: [] };
    const headers = { host: "localhost:3070", origin: "http://localhost:3070", "content-type": "application/json", "x-forwarded-user": "ann" };
    try {
      const admin = await withPeerRequest("http://localhost:3070/api/x", { method: "POST", headers: { ...headers, "x-forwarded-groups": "gapwatch-admin" } }, (r) => requireAdmin(r, now));
      expect(admin).toEqual({ role: "admin", via: "proxy", user: "ann" });
      const viewer = withPeerRequest("http://localhost:3070/api/x", { method: "POST", headers }, (r) => requireAdmin(r, now));
      await expect(viewer).rejects.toThrow(new ForbiddenError('user "ann" is a viewer; admin actions need the admin role'));
      config.server.proxyAuth = { ...config.server.proxyAuth, trustedProxies: ["10.0.0.1"] };
      const untrusted = withPeerRequest("http://localhost:3070/api/x", { method: "POST", headers: { ...headers, "x-forwarded-groups": "gapwatch-admin" } }, (r) => requireAdmin(r, now));
      await expect(untrusted).rejects.toThrow(UnauthorizedError);
    } finally {
      config.server.proxyAuth = undefined;
    }
  });

  it("answers 403 when neither an admin secret nor proxy authentication is configured", () => {
    config.admin.secret = undefined;
    try {
      expect(() => requireAdmin(restartRequest({}), now)).toThrow(new ForbiddenError("admin actions are disabled: set admin.secret in the Gapwatch config"));
    } finally {
      config.admin.secret = secret;
    }
  });
});

describe("isAdmin and mayRead (pages)", () => {
  it("an admin session may act and read; nobody may act, and reads need an identity only when configured", () => {
    const admin = { get: (n: string) => (n === sessionCookieName ? { value: createSessionToken(secret, now) } : undefined) };
    const nobody = { get: () => undefined };
    expect([isAdmin(new Headers(), admin, now), isAdmin(new Headers(), nobody, now)]).toEqual([true, false]);
    expect(mayRead(new Headers(), nobody, now)).toBe(true);
    config.server.requireSignInForReads = true;
    try {
      expect([mayRead(new Headers(), nobody, now), mayRead(new Headers(), admin, now)]).toEqual([false, true]);
    } finally {
      config.server.requireSignInForReads = false;
    }
  });
});

describe("sign-out and secret rotation", () => {
  const jar = (token: string) => ({ get: (n: string) => (n === sessionCookieName ? { value: token } : undefined) });

  it("revokes the signed-out session only: the same cookie is then refused, another session still works", async () => {
    const signedOut = signIn(secret, now);
    const other = signIn(secret, now);
    await signOut(jar(signedOut), now + 1000);
    expect(readSessionCookie(jar(signedOut), now + 2000)).toBe("invalid");
    expect(() => requireAdmin(restartRequest({ cookie: `${sessionCookieName}=${signedOut}` }), now + 2000)).toThrow(UnauthorizedError);
    expect(readSession(jar(other), now + 2000)).toMatchObject({ role: "admin" });
  });

  it("ends every session when the admin secret changes", () => {
    const token = signIn(secret, now);
    config.admin.secret = "a-rotated-admin-secret";
    try {
      expect(readSessionCookie(jar(token), now)).toBe("invalid");
    } finally {
      config.admin.secret = secret;
    }
    expect(readSessionCookie(jar(token), now)).not.toBe("invalid");
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
