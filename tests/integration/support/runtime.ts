import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getRuntime } from "@/lib/pipeline/runtime";
import type { Snapshot } from "@/lib/collector/types";
import { sleep } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka } from "@/lib/sandbox/topics";

/**
 * Points Gapwatch's runtime (config, collector, SQLite store) at the running sandbox, exactly as
 * the server does, but without starting the loop: tests drive cycles with `runCycle()`. `extraYaml` is
 * appended to the config (top-level keys such as `notifications:` or `metrics:`).
 */
export function createSandboxRuntime(state: SandboxState, pollIntervalSeconds = 5, thresholds: Record<string, number> = {}, extraYaml = "") {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-it-"));
  const configFile = path.join(dir, "gapwatch.config.yaml");
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  writeFileSync(configFile, `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: ${pollIntervalSeconds}\nconfigRefreshCycles: 1\nthresholds: ${JSON.stringify(thresholds)}\n${extraYaml}`);
  process.env.GAPWATCH_CONFIG = configFile;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
  return getRuntime();
}

/** Calls a route handler the way Next.js does and returns its status and parsed JSON body. */
export async function callRoute<P extends Record<string, string>>(
  handler: (request: Request, ctx: { params: Promise<P> }) => Promise<Response> | Response,
  url: string,
  params: P,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(new Request(`http://localhost${url}`), { params: Promise.resolve(params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Runs collector cycles, one a second, until `check` holds for the newest snapshot; on timeout the
 * error names what it waited for and what `describe` shows of the last snapshot.
 */
export async function cycleUntil(
  collector: { runCycle(): Promise<Snapshot> },
  check: (s: Snapshot) => boolean,
  what: string,
  opts: { timeoutMs?: number; describe?: (s: Snapshot) => string } = {},
): Promise<Snapshot> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let snapshot = await collector.runCycle();
  while (!check(snapshot)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${opts.describe ? `: ${opts.describe(snapshot)}` : ""}`);
    await sleep(1000);
    snapshot = await collector.runCycle();
  }
  return snapshot;
}

/**
 * Later files share the sandbox: deletes what a file created, per cluster (its topics, and groups when given);
 * a topic or group already gone is not an error.
 */
export async function deleteLeftovers(items: readonly { bootstrap: string; topics: string[]; groups?: string[] }[]): Promise<void> {
  for (const { bootstrap, topics, groups } of items) {
    const admin = sandboxKafka(bootstrap).admin();
    await admin.connect();
    if (groups !== undefined) await admin.deleteGroups(groups).catch(() => undefined);
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  }
}
