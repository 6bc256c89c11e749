import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { type ManagedProcess, sleep, spawnTracked, stopProcess, tailFile } from "@/lib/sandbox/processes";
import { recordDashboardUrl, type Sandbox, startSandbox } from "@/lib/sandbox/sandbox";
import type { SandboxState } from "@/lib/sandbox/state";
import { startWorkload, type Workload } from "@/lib/sandbox/workload";
import { buildAppIfChanged } from "./app-build";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

/** The demo (and e2e) stack: sandbox, workload, and the dashboard served by `next start`. */
export interface Stack {
  sandbox: Sandbox;
  workload: Workload | null;
  app: ManagedProcess;
  url: string;
  adminSecret: string;
  stop(): Promise<void>;
}

export interface StackOptions {
  port: number;
  workload: boolean;
  ratePerSecond?: number;
  pollIntervalSeconds?: number;
  log: (line: string) => void;
}

const demoDir = path.join(gapwatchDir, "demo");

/**
 * Starts everything the demo needs, building the app in parallel with the sandbox. On any failure
 * what was started is stopped again, by PID.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  await assertPortFree(opts.port);
  const [started, built] = await Promise.allSettled([startSandbox(), buildAppIfChanged(opts.log)]);
  if (started.status === "rejected" || built.status === "rejected") {
    // Whichever half succeeded is stopped again before the failure is reported.
    if (started.status === "fulfilled") await started.value.stop();
    throw started.status === "rejected" ? started.reason : (built as PromiseRejectedResult).reason;
  }
  const sandbox = started.value;
  let workload: Workload | null = null;
  let app: ManagedProcess | null = null;
  const stop = async () => {
    if (app) await stopProcess(app, 10_000);
    await workload?.stop();
    await sandbox.stop();
  };
  try {
    const adminSecret = readOrCreateAdminSecret();
    const configFile = writeStackConfig(sandbox.state, opts.pollIntervalSeconds ?? 5);
    const dbFile = path.join(demoDir, "gapwatch.db");
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
    if (opts.workload) workload = await startWorkload({ bootstrap: sandbox.state.clusters.east!.bootstrap, ratePerSecond: opts.ratePerSecond ?? 20 });
    app = spawnTracked({
      name: "dashboard",
      command: process.execPath,
      args: [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(opts.port), "-H", "127.0.0.1"],
      cwd: repoRoot,
      logFile: path.join(demoDir, "dashboard.log"),
      env: { ...process.env, GAPWATCH_CONFIG: configFile, GAPWATCH_DB: dbFile, GAPWATCH_ADMIN_SECRET: adminSecret, NEXT_TELEMETRY_DISABLED: "1", PORT: String(opts.port) },
    });
    const url = `http://localhost:${opts.port}`;
    await waitForHealth(`http://127.0.0.1:${opts.port}/api/health`, app);
    recordDashboardUrl(sandbox, url);
    return { sandbox, workload, app, url, adminSecret, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The config the demo's dashboard reads: the sandbox clusters and its Connect worker. */
function writeStackConfig(state: SandboxState, pollIntervalSeconds: number): string {
  mkdirSync(demoDir, { recursive: true });
  const file = path.join(demoDir, "gapwatch.config.yaml");
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  writeFileSync(
    file,
    [
      "# Written by `npm run demo` for the sandbox; see docs/configuration.md for every setting.",
      "clusters:",
      clusters,
      "connect:",
      "  - name: sandbox",
      `    url: ${state.connect.url}`,
      `    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}`,
      `pollIntervalSeconds: ${pollIntervalSeconds}`,
      "configRefreshCycles: 6",
      "admin:",
      "  secret: ${GAPWATCH_ADMIN_SECRET}",
      "# The content audit is opt-in; the demo shows it.",
      "audit:",
      "  enabled: true",
      "",
    ].join("\n"),
  );
  return file;
}

/** The demo's admin secret (for restart/acknowledge), kept in .gapwatch/demo/admin-secret. */
export function readOrCreateAdminSecret(): string {
  if (process.env.GAPWATCH_ADMIN_SECRET) return process.env.GAPWATCH_ADMIN_SECRET;
  const file = path.join(demoDir, "admin-secret");
  mkdirSync(demoDir, { recursive: true });
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(18).toString("base64url")}\n`, { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

export async function waitForHealth(url: string, app: ManagedProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.hasExited()) throw new Error(`the dashboard exited during start-up. Last lines of ${app.logFile}:\n${tailFile(app.logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(300);
  }
  throw new Error(`the dashboard did not answer ${url} within ${timeoutMs / 1000}s. Last lines of ${app.logFile}:\n${tailFile(app.logFile)}`);
}

export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", () => reject(new Error(`port ${port} is in use; stop what uses it or set PORT to another port`)));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}
