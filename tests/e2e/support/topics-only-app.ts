import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";
import { findFreePort } from "@/lib/sandbox/free-port";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { type ManagedProcess, sleep, spawnTracked, stopProcess, tailFile } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { type LockedCluster, lockedAlias, lockedUser, startLockedCluster } from "./locked-cluster";

/** Where the second dashboard keeps its config, database and log. */
const dir = path.join(gapwatchDir, "e2e-topics-only");
/** The environment variable the specs read the second dashboard's URL from (set by the global setup). */
export const topicsOnlyUrlVariable = "GAPWATCH_E2E_TOPICS_ONLY_URL";
/** Its Connect cluster's name: the sandbox worker, given by its internal topics and no url. */
export const topicsOnlyConnect = "sandbox-topics";
/**
 * Event findings held 5 s instead of an hour (thresholds.eventHoldMs): a loss alert of an earlier spec's purge
 * stops growing (held 5 s, then absent for the alert service's 60 s) within the run, so its "stopped growing"
 * state can be seen for real. Only this dashboard is configured so; the main one keeps the default.
 */
export const topicsOnlyEventHoldMs = 5000;

/** A second dashboard on the e2e sandbox, reading Connect only from its internal topics, and the locked cluster. */
export interface TopicsOnlyApp {
  url: string;
  app: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * The config: the sandbox clusters and the locked cluster (SASL PLAIN, least privilege), Connect as its internal
 * topics on west (no url), short event hold.
 */
function writeTopicsOnlyConfig(locked: LockedCluster): string {
  const state = readSandboxState();
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`);
  clusters.push(
    `  - alias: ${lockedAlias}\n    bootstrap: ${locked.saslBootstrap}\n    sasl:\n      mechanism: PLAIN\n      username: ${lockedUser.username}\n` +
      "      password: ${E2E_LOCKED_PASSWORD}",
  );
  const file = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(
    file,
    [
      "# Written by the e2e global setup: Connect read from its internal topics, as behind Strimzi's NetworkPolicy.",
      "clusters:",
      ...clusters,
      "connect:",
      `  - name: ${topicsOnlyConnect}`,
      "    internalTopics: { cluster: west, configs: connect-configs, offsets: connect-offsets, status: connect-status }",
      `    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}`,
      "pollIntervalSeconds: 3",
      "admin:",
      "  secret: ${GAPWATCH_ADMIN_SECRET}",
      "thresholds:",
      `  eventHoldMs: ${topicsOnlyEventHoldMs}`,
      "",
    ].join("\n"),
  );
  return file;
}

/** Waits until the dashboard's readiness probe answers 200 (its first cycle is done). */
async function waitUntilReady(url: string, app: ManagedProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.hasExited()) throw new Error(`the topics-only dashboard exited. Last lines of ${app.logFile}:\n${tailFile(app.logFile)}`);
    const res = await fetch(`${url}/api/health/ready`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
    if (res?.status === 200) return;
    await sleep(500);
  }
  throw new Error(`the topics-only dashboard at ${url} was not ready within ${timeoutMs / 1000} s. Last lines of ${app.logFile}:\n${tailFile(app.logFile)}`);
}

/**
 * Starts a second `next start` of the same build on the e2e sandbox, its Connect cluster given as internal topics
 * only, with a cluster that denies it two reads (tests/e2e/support/locked-cluster.ts), and waits for its first
 * cycle. Both are stopped by PID.
 */
export async function startTopicsOnlyApp(): Promise<TopicsOnlyApp> {
  const secret = process.env.GAPWATCH_ADMIN_SECRET;
  if (!secret) throw new Error("GAPWATCH_ADMIN_SECRET is not set: run the e2e tests through `npm test` or set it to the app's admin secret");
  mkdirSync(dir, { recursive: true });
  const dbFile = path.join(dir, "gapwatch.db");
  for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
  const locked = await startLockedCluster();
  const configFile = writeTopicsOnlyConfig(locked);
  const port = await findFreePort();
  const app = spawnTracked({
    name: "dashboard-topics-only",
    command: process.execPath,
    args: [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    cwd: repoRoot,
    logFile: path.join(dir, "dashboard.log"),
    env: {
      ...process.env,
      GAPWATCH_CONFIG: configFile,
      GAPWATCH_DB: dbFile,
      GAPWATCH_ADMIN_SECRET: secret,
      E2E_LOCKED_PASSWORD: lockedUser.password,
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
    },
  });
  const url = `http://localhost:${port}`;
  const stop = async () => {
    await stopProcess(app, 10_000);
    await locked.stop();
  };
  try {
    await waitUntilReady(url, app);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, app, stop };
}

/** The second dashboard's URL, for specs (set by the global setup). */
export function readTopicsOnlyUrl(): string {
  const url = process.env[topicsOnlyUrlVariable];
  if (!url) throw new Error(`${topicsOnlyUrlVariable} is not set: the e2e global setup (tests/e2e/support/global-setup.ts) starts that dashboard`);
  return url;
}
