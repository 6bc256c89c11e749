import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { attachRevocationStore } from "@/lib/auth/revocation";
import { sessionCookieName } from "@/lib/auth/session";
import { getSignInLimiter } from "@/lib/auth/sign-in-limiter";
import { createSqliteStore, type Store } from "@/lib/store";
import { withPeerRequest } from "./peer-request";

vi.mock("@/lib/config", () => ({ getConfig: () => ({ admin: { secret: "revocation-test-admin-secret" }, server: { requireSignInForReads: false } }) }));

const { GET, POST } = await import("@/app/api/session/route");

const headers = { host: "localhost:3316", origin: "http://localhost:3316", "content-type": "application/json" };
const post = (body: unknown, extra: Record<string, string> = {}) =>
  withPeerRequest("http://localhost:3316/api/session", { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) }, POST);
const statusOf = async (cookie: string) => (await GET(new Request("http://localhost:3316/api/session", { headers: { cookie } }))).status;
const signInCookie = async () => (await post({ secret: "revocation-test-admin-secret" })).headers.get("set-cookie")!.split(";")[0]!;

/** What a process restart forgets: the revocations this process held in memory, and its refresh timer. */
const holder = globalThis as typeof globalThis & { __gapwatchRevocations?: { timer: NodeJS.Timeout | null } };
function forgetProcessMemory(): void {
  if (holder.__gapwatchRevocations?.timer) clearInterval(holder.__gapwatchRevocations.timer);
  delete holder.__gapwatchRevocations;
}

let dir = "";
const stores: Store[] = [];
const openStore = () => {
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-revocations-"));
  getSignInLimiter().recordSuccess("127.0.0.1");
  forgetProcessMemory();
});
afterEach(async () => {
  forgetProcessMemory();
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("revoked sessions kept in the store", () => {
  it("answers a signed-out cookie 401 after a restart on the same database, while another session still works", async () => {
    await attachRevocationStore(openStore());
    const [signedOut, kept] = [await signInCookie(), await signInCookie()];
    expect(signedOut.startsWith(`${sessionCookieName}=v1.`)).toBe(true);
    expect((await post({ action: "signout" }, { cookie: signedOut })).status).toBe(200);
    expect([await statusOf(signedOut), await statusOf(kept)]).toEqual([401, 200]);
    await stores[0]!.close();
    stores.splice(0);

    // The restart: a new process memory, the same database.
    forgetProcessMemory();
    expect(await statusOf(signedOut)).toBe(200);
    await attachRevocationStore(openStore());
    expect([await statusOf(signedOut), await statusOf(kept)]).toEqual([401, 200]);
    expect((await stores[0]!.listRevokedSessions(Date.now())).length).toBe(1);
  });

  it("refuses every session while the stored revocations cannot be read, and accepts them once they are", async () => {
    const cookie = await signInCookie();
    const store = openStore();
    let down = true;
    const flaky: Store = { ...store, listRevokedSessions: (now) => (down ? Promise.reject(new Error("connection refused")) : store.listRevokedSessions(now)) };
    await attachRevocationStore(flaky);
    expect(await statusOf(cookie)).toBe(401);
    down = false;
    // The next refresh (every 5 s) reads them.
    await expect.poll(() => statusOf(cookie), { timeout: 8000, interval: 250 }).toBe(200);
  }, 15_000);
});
