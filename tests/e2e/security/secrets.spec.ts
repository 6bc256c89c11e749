import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { repoRoot } from "@/lib/sandbox/paths";
import { readSandboxState } from "@/lib/sandbox/state";
import { secrets, startSecretStack, wireForms, type SecretStack } from "./secret-stack";

interface Seen {
  what: string;
  status: number;
  text: string;
}

/** Every page and API route of the app, as templates like `/api/flows/[flow]/groups`, with the methods it exports. */
function listRoutes(): { template: string; methods: string[] }[] {
  const found: { template: string; methods: string[] }[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file, `${prefix}/${entry.name}`);
      else if (entry.name === "page.tsx") found.push({ template: prefix || "/", methods: ["PAGE"] });
      else if (entry.name === "route.ts") {
        const source = readFileSync(file, "utf8");
        found.push({ template: prefix, methods: ["GET", "POST", "DELETE"].filter((m) => new RegExp(`export (async )?function ${m}\\b`).test(source)) });
      }
    }
  };
  walk(path.join(repoRoot, "app"), "");
  return found;
}

test.describe("secrets never leave the server", () => {
  let stack: SecretStack | null = null;

  test.afterAll(async () => {
    await stack?.stop();
  });

  test("no secret in any response body, header, log line or metric, across every route and its error paths", async () => {
    test.setTimeout(150_000);
    stack = await startSecretStack();
    const base = stack.url;
    const seen: Seen[] = [];
    const call = async (what: string, url: string, init: RequestInit = {}) => {
      const response = await fetch(url.startsWith("http") ? url : `${base}${url}`, { redirect: "manual", ...init, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      seen.push({ what, status: response.status, text: `${[...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${text}` });
      return { status: response.status, headers: response.headers, text };
    };
    const json = { origin: base, "content-type": "application/json" };

    // Wait for a cycle with the flow, so pages render real data (and the collector has met the decoy and the dead Connect).
    const flow = "east->west";
    await expect.poll(async () => (await call("flows", "/api/flows")).text.includes(`"${flow}"`), { timeout: 60_000, intervals: [1000] }).toBe(true);
    const groups = JSON.parse((await call("groups", `/api/flows/${encodeURIComponent(flow)}/groups`)).text) as { groups?: { group: string }[] };
    const group = groups.groups?.[0]?.group ?? "gapwatch-fast";
    const connectView = JSON.parse((await call("connect", "/api/connect")).text) as {
      connect: { name: string; url: string; reachable: boolean; error: string | null; connectors: { name: string }[] }[];
    };
    const sandboxConnect = new URL(readSandboxState().connect.url);
    const byName = Object.fromEntries(connectView.connect.map((c) => [c.name, c]));
    // The URL's user-info became basic auth: the worker answers, and the URL is shown without it.
    expect([byName.sandbox?.url, byName.sandbox?.reachable]).toEqual([`http://${sandboxConnect.host}`, true]);
    expect(byName.down?.reachable).toBe(false);
    expect(byName.down?.error).toContain("127.0.0.1:");
    const connector = byName.sandbox?.connectors[0]?.name ?? "mm2-source";

    // Admin: wrong secrets from a client behind the (trusted) proxy are rate limited; the right one signs in.
    // 5 wrong secrets are free, the 6th starts a 1 s wait: attempts within it answer 429 (tried until one does, so a
    // slow machine cannot let the wait pass unseen).
    const behindProxy = { ...json, "x-forwarded-for": "203.0.113.50" };
    const statuses: number[] = [];
    let limited: { status: number; headers: Headers } | null = null;
    while (!limited && statuses.length < 20) {
      const attempt = await call("wrong secret", "/api/session", { method: "POST", headers: behindProxy, body: JSON.stringify({ secret: `nope-${statuses.length}-guess` }) });
      statuses.push(attempt.status);
      if (attempt.status === 429) limited = attempt;
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(limited?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    const signedIn = await call("sign in", "/api/session", { method: "POST", headers: json, body: JSON.stringify({ secret: secrets.adminSecret }) });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;

    // The peer stamp works under `next start`: 127.0.0.1 is the trusted proxy here, so its user header counts.
    const viewer = await call("proxy viewer", "/api/session", { headers: { "x-test-user": "vera" } });
    expect(JSON.parse(viewer.text)).toEqual({ role: "viewer", via: "proxy", user: "vera" });
    const viewerRestart = await call("viewer restart", `/api/connect/sandbox/connectors/${encodeURIComponent(connector)}/tasks/0/restart`, {
      method: "POST",
      headers: { ...json, "x-test-user": "vera" },
      body: "{}",
    });
    expect(viewerRestart.status).toBe(403);

    // DNS rebinding: another Host is refused on pages and API.
    for (const target of ["/", "/api/flows"]) {
      const status = await new Promise<number>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port: stack!.port, path: target, headers: { host: "rebind.attacker.example" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on("error", reject);
      });
      expect([target, status]).toEqual([target, 421]);
    }

    // Every route: with good parameters, and with bad ones (unknown flow, cluster, topic, group; junk query values).
    const good: Record<string, string> = { flow: encodeURIComponent(flow), group: encodeURIComponent(group), topic: "orders", partition: "0", name: encodeURIComponent(connector) };
    const bad: Record<string, string> = { flow: encodeURIComponent("nowhere->west"), group: "no-such-group", topic: "no-such-topic", partition: "x", name: "no-such-connector" };
    const fill = (template: string, values: Record<string, string>, connectCluster: string, clusterAlias: string, id: string) =>
      template.replace(/\[([^\]]+)\]/g, (_m, name: string) => {
        if (name === "cluster") return template.startsWith("/api/connect") ? connectCluster : clusterAlias;
        if (name === "id") return id;
        const value = values[name];
        if (value === undefined) throw new Error(`the secrets test does not know route parameter [${name}] of ${template}: add it`);
        return value;
      });
    const routes = listRoutes();
    expect(routes.length).toBeGreaterThan(20);
    for (const { template, methods } of routes) {
      const isTask = template.includes("/tasks/");
      const urls = [
        fill(template, good, "down", "east", isTask ? "0" : "no-such-alert"),
        fill(template, bad, "no-such-connect", "north", isTask ? "x" : "9999"),
      ];
      for (const url of urls) {
        for (const method of methods) {
          if (method === "PAGE") {
            await call(`page ${url}`, url, { headers: { cookie } });
            await call(`rsc ${url}`, url, { headers: { cookie, rsc: "1" } });
          } else if (method === "GET") {
            await call(`GET ${url}`, url);
            await call(`GET junk ${url}`, `${url}?limit=abc&cursor=%25%25&sort=bogus&from=yesterday&q=${"x".repeat(300)}`, { headers: { cookie: "gapwatch_session=%E0%A4%A" } });
          } else if (template !== "/api/session") {
            // Admin actions: signed in (the restart targets the Connect that is down), and without a session.
            await call(`${method} ${url}`, url, { method, headers: { ...json, cookie }, body: "{}" });
            await call(`${method} anon ${url}`, url, { method, headers: json, body: "{}" });
          }
        }
      }
    }
    const downRestart = seen.find((s) => s.what.startsWith("POST /api/connect/down/"));
    expect(downRestart?.status).toBe(502);

    // Sign-out revokes: the same cookie is refused afterwards.
    expect((await call("sign out", "/api/session", { method: "POST", headers: { ...json, cookie }, body: JSON.stringify({ action: "signout" }) })).status).toBe(200);
    expect((await call("revoked", "/api/session", { headers: { cookie } })).status).toBe(401);
    await call("metrics", "/api/metrics");

    await stack.stop();
    const log = readFileSync(stack.app.logFile, "utf8");
    expect(log).toContain('"msg":"config loaded"');
    const haystacks = [...seen, { what: "server log", status: 0, text: log }];
    const leaks = haystacks.flatMap((h) =>
      [...Object.entries(secrets), ...wireForms.map((w, i) => [`basic-auth-${i}`, w] as const)]
        .filter(([, value]) => h.text.includes(value))
        .map(([name]) => `${name} in ${h.what} (${h.status})`),
    );
    expect(leaks).toEqual([]);
    expect(seen.length).toBeGreaterThan(100);
  });
});
