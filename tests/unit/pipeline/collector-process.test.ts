import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getServingRuntime, startServerRuntime } from "@/lib/pipeline/runtime";
import type { Store } from "@/lib/store";
import { renderServedMetrics } from "@/lib/views/served-metrics";

/** A TCP port nothing listens on: the cluster there refuses every connection at once, so each cycle is short. */
async function findClosedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Busy-waits: this process's event loop does nothing else for `ms`, as under a page render that never yields. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Spinning on purpose.
  }
}

async function waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * GAPWATCH_ROLE=all's collector runs in a process of its own (issue 15 item 5: HTTP load stretched the poll cycle
 * from 0.1 s to 6 s when the collector shared the server's event loop). With the server's event loop blocked, the
 * collector must keep polling and publishing; this fails if the collector ran on the caller's event loop again.
 */
describe("role all's collector process", () => {
  let store: Store;
  let child: NonNullable<ReturnType<typeof startServerRuntime>>;
  const cycleOf = () => getServingRuntime().models.latest()?.snapshot.cycle ?? 0;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-collector-process-"));
    const config = path.join(dir, "gapwatch.config.yaml");
    const port = await findClosedPort();
    writeFileSync(config, `clusters:\n  - alias: east\n    bootstrap: 127.0.0.1:${port}\npollIntervalSeconds: 1\n`);
    process.env.GAPWATCH_CONFIG = config;
    process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
    process.env.GAPWATCH_LOG_LEVEL = "error";
    child = startServerRuntime()!;
    store = getServingRuntime().store;
    // The published model reaches this process's web runtime through the child's "published" message.
    await waitFor(() => cycleOf() > 0, "the collector process's first published cycle", 90_000);
  }, 120_000);

  afterAll(async () => {
    await child?.stop();
    await store?.close();
  }, 30_000);

  it("serves the published model from a child process, and has no collector of its own", () => {
    expect(child.pid()).not.toBeNull();
    expect(child.pid()).not.toBe(process.pid);
    expect(getServingRuntime().role).toBe("all");
    expect(getServingRuntime().collectorMetrics).toBeTypeOf("function");
    expect("collector" in getServingRuntime()).toBe(false);
  });

  it("keeps polling and publishing while the server's event loop is blocked", async () => {
    const before = (await store.listReadModelVersions()).find((v) => v.shard === "all")!;
    const blockedFrom = Date.now();
    blockEventLoop(5000);
    // better-sqlite3 reads synchronously: these are the rows as they stood when the loop was released.
    const after = (await store.listReadModelVersions()).find((v) => v.shard === "all")!;
    // 1 s polls of a refusing cluster: about 4 cycles in 5 s. On this event loop there would have been none.
    expect(after.cycle - before.cycle).toBeGreaterThanOrEqual(2);
    expect(after.takenAt).toBeGreaterThanOrEqual(blockedFrom);
    await waitFor(() => cycleOf() >= after.cycle, `the web runtime serving cycle ${after.cycle}`, 10_000);
  }, 60_000);

  it("answers /api/metrics with the child's registry", async () => {
    const text = await renderServedMetrics();
    const count = Number(/^gapwatch_collector_cycle_seconds_count (\d+)$/m.exec(text)?.[1]);
    expect(count).toBeGreaterThanOrEqual(cycleOf());
    expect(text).toMatch(/^gapwatch_cluster_up\{cluster="east"\} 0$/m);
  }, 30_000);

  it("stops the child by PID, and starts no other", async () => {
    const pid = child.pid()!;
    await child.stop();
    expect(child.pid()).toBeNull();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    const cycle = (await store.listReadModelVersions())[0]!.cycle;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await store.listReadModelVersions())[0]!.cycle).toBe(cycle);
    await expect(renderServedMetrics()).rejects.toThrow(/not running/);
  }, 30_000);
});
