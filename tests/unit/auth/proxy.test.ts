import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { sessionCookieName } from "@/lib/auth/session";
import { createSessionToken } from "@/lib/auth/token";

const config = vi.hoisted(() => ({
  admin: { secret: "proxy-test-admin-secret" },
  server: { publicUrl: "https://gapwatch.example.com" as string | undefined, requireSignInForReads: false },
}));
vi.mock("@/lib/config", () => ({ getConfig: () => config }));

const { proxy } = await import("@/proxy");

const request = (url: string, headers: Record<string, string>) => new NextRequest(url, { headers });

describe("proxy (every page and API route)", () => {
  it("refuses a Host that is not allowed with 421, on pages and API alike", async () => {
    for (const path of ["/", "/api/flows", "/api/session"]) {
      const response = proxy(request(`http://rebind.attacker.example:3000${path}`, { host: "rebind.attacker.example:3000" }));
      expect(response.status).toBe(421);
      expect(await response.json()).toEqual({
        error: 'host "rebind.attacker.example:3000" is not served here; add it to server.allowedHosts in the Gapwatch config',
        code: "GW_FORBIDDEN",
      });
    }
    expect(proxy(request("https://gapwatch.example.com/api/flows", { host: "gapwatch.example.com" })).headers.get("x-middleware-next")).toBe("1");
    expect(proxy(request("http://localhost:3315/", { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
  });

  it("answers a path with a malformed percent-escape 400 with what to fix, before Next.js's router can 500 on it", async () => {
    for (const path of ["/api/flows/%E0%A4%A", "/flows/%ZZ"]) {
      const response = proxy(request(`http://localhost:3315${path}`, { host: "localhost:3315" }));
      expect([response.status, await response.json()]).toEqual([
        400,
        { error: `the path "${path}" has a malformed percent-escape: encode "%" as %25 and each byte as %XX`, code: "GW_BAD_REQUEST" },
      ]);
    }
    expect(proxy(request("http://localhost:3315/flows/east-%3Ewest", { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
  });

  it("with requireSignInForReads: pages redirect to /signin, the API answers 401, a session passes", async () => {
    config.server.requireSignInForReads = true;
    try {
      const page = proxy(request("http://localhost:3315/flows/east-%3Ewest?tab=groups", { host: "localhost:3315" }));
      expect([page.status, page.headers.get("location")]).toEqual([303, "http://localhost:3315/signin?next=%2Fflows%2Feast-%253Ewest%3Ftab%3Dgroups"]);
      const api = proxy(request("http://localhost:3315/api/flows", { host: "localhost:3315" }));
      expect([api.status, await api.json()]).toEqual([401, { error: "sign in first: this server requires it for reads", code: "GW_UNAUTHORIZED" }]);
      const malformed = proxy(request("http://localhost:3315/api/flows", { host: "localhost:3315", cookie: `${sessionCookieName}=v1.1.x.forged` }));
      expect([malformed.status, ((await malformed.json()) as { error: string }).error]).toEqual([401, "the session cookie is not valid (expired, signed out or malformed); sign in again"]);
      expect(proxy(request("http://localhost:3315/signin", { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
      expect(proxy(request("http://localhost:3315/api/session", { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
      const cookie = `${sessionCookieName}=${createSessionToken("proxy-test-admin-secret", Date.now())}`;
      expect(proxy(request("http://localhost:3315/api/flows", { host: "localhost:3315", cookie })).headers.get("x-middleware-next")).toBe("1");
    } finally {
      config.server.requireSignInForReads = false;
    }
  });

  it("in the collector role, answers only /api/health and /api/metrics; pages and other routes get 503 naming the role", async () => {
    process.env.GAPWATCH_ROLE = "collector";
    try {
      for (const path of ["/api/health", "/api/metrics"]) {
        expect(proxy(request(`http://localhost:3315${path}`, { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
      }
      for (const path of ["/", "/api/flows", "/alerts"]) {
        const response = proxy(request(`http://localhost:3315${path}`, { host: "localhost:3315" }));
        expect([response.status, await response.json()]).toEqual([503, {
          error: `this Gapwatch process runs with GAPWATCH_ROLE=collector: it polls and serves only /api/health and /api/metrics; open a web instance (GAPWATCH_ROLE=web) for ${path}`,
          code: "GW_NOT_THIS_ROLE",
        }]);
      }
      process.env.GAPWATCH_ROLE = "web";
      expect(proxy(request("http://localhost:3315/api/flows", { host: "localhost:3315" })).headers.get("x-middleware-next")).toBe("1");
    } finally {
      delete process.env.GAPWATCH_ROLE;
    }
  });
  it("lets the probes through in every role, from any Host, without signing in", () => {
    config.server.requireSignInForReads = true;
    try {
      for (const role of ["all", "collector", "web"]) {
        process.env.GAPWATCH_ROLE = role;
        for (const path of ["/api/health/live", "/api/health/ready"]) {
          const response = proxy(request(`http://10.42.0.17:3000${path}`, { host: "10.42.0.17:3000" }));
          expect([role, path, response.headers.get("x-middleware-next")]).toEqual([role, path, "1"]);
        }
      }
      // Only the probes: the full health view keeps the Host check.
      expect(proxy(request("http://10.42.0.17:3000/api/health", { host: "10.42.0.17:3000" })).status).toBe(421);
    } finally {
      config.server.requireSignInForReads = false;
      delete process.env.GAPWATCH_ROLE;
    }
  });
});
