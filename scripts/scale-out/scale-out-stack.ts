import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findFreePort } from "@/lib/sandbox/free-port";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { type PostgresServer, startPostgres } from "@/lib/sandbox/postgres";
import { type ManagedProcess, sleep, spawnTracked, stopProcess, stopStaleProcesses } from "@/lib/sandbox/processes";
import { recordDashboardUrl, type Sandbox, startSandbox } from "@/lib/sandbox/sandbox";
import type { SandboxState } from "@/lib/sandbox/state";
import { startWorkload, type Workload } from "@/lib/sandbox/workload";
import { buildAppIfChanged } from "../app-build";
import { ensurePostgres } from "../postgres-package";
import { assertPortFree, readOrCreateAdminSecret, waitForHealth } from "../stack";
import { forgetPostgres, recordPostgres, stopStalePostgres } from "./postgres-record";
import { startRoundRobinProxy, type RoundRobinProxy } from "./round-robin-proxy";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

/** Two regions, east and south, each replicated by MM2 into west, the DR and aggregation site that runs Connect. */
export const scaleOutAliases = ["east", "west", "south"];
export const scaleOutFlows = ["east->west", "south->west"];
/** The collectors' group lives on west, the site that also runs MM2. */
const homeCluster = "west";
/**
 * Kafka's hash puts east->west on shard 9 and south->west on shard 4 of 10; the group's round-robin assignment
 * (shard i to member i mod n) then gives the two flows to different collectors with three members and with two.
 * (With 12 they hash to shards 5 and 8: one collector would hold both while three run.)
 */
export const scaleOutShards = 10;
const collectorCount = 3;
const webCount = 2;
const demoDir = path.join(gapwatchDir, "demo", "scale-out");

export interface ScaleOutStack {
  /** Starts everything; on failure what was started is stopped again. */
  start(): Promise<void>;
  /** Stops every process by PID, at any moment (also half-way through `start`). */
  stop(): Promise<void>;
  url: string;
  /** Every process it runs, by name (PostgreSQL, the JVMs, collectors, web instances). */
  processes(): { name: string; pid: number }[];
  collectors(): readonly ManagedProcess[];
}

/**
 * The scale-out demo (issue 13 item 4): PostgreSQL, a sandbox of three clusters with two MM2 flows, a workload on
 * each source, three collectors and two web instances (`next start` with GAPWATCH_ROLE), and one public port in
 * front of the web instances.
 */
export function createScaleOutStack(opts: { port: number; log: (line: string) => void }): ScaleOutStack {
  let stopping = false;
  let postgres: PostgresServer | null = null;
  let postgresStarting: Promise<unknown> | null = null;
  let sandbox: Sandbox | null = null;
  const workloads: Workload[] = [];
  const collectors: ManagedProcess[] = [];
  const webs: ManagedProcess[] = [];
  let proxy: RoundRobinProxy | null = null;
  const checkNotStopping = () => {
    if (stopping) throw new Error("stopped during start-up");
  };

  const stop = async () => {
    stopping = true;
    await proxy?.close();
    await Promise.all(webs.map((p) => stopProcess(p, 10_000)));
    // Collectors leave the shard group on SIGTERM and close their store connections before PostgreSQL stops.
    await Promise.all(collectors.map((p) => stopProcess(p, 10_000)));
    await Promise.all(workloads.map((w) => w.stop()));
    await sandbox?.stop();
    // A sandbox still starting is known only by the pidfiles of the JVMs it has started so far.
    await stopStaleProcesses();
    if (postgres === null && postgresStarting !== null) await Promise.race([postgresStarting.catch(() => undefined), sleep(20_000)]);
    await postgres?.stop();
    forgetPostgres();
  };

  const start = async () => {
    await assertPortFree(opts.port);
    // A crashed earlier run: its collectors and web instances by pidfile, then its PostgreSQL by its record.
    const stale = [...(await stopStaleProcesses()), await stopStalePostgres()].filter((s) => s !== null);
    if (stale.length > 0) opts.log(`Stopped what a crashed run left: ${stale.join(", ")}`);
    ensurePostgres(opts.log);
    try {
      postgresStarting = startPostgres().then((server) => {
        postgres = server;
        recordPostgres(server);
      });
      const started = await Promise.allSettled([
        postgresStarting,
        startSandbox({ aliases: scaleOutAliases, secondFlow: { source: "south", target: "west" } }).then((s) => (sandbox = s)),
        buildAppIfChanged(opts.log),
      ]);
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw failed.reason;
      checkNotStopping();
      const state = sandbox!.state;
      for (const source of ["east", "south"]) workloads.push(await startWorkload({ bootstrap: state.clusters[source]!.bootstrap, ratePerSecond: 20 }));
      const env = {
        ...process.env,
        GAPWATCH_CONFIG: writeScaleOutConfig(state),
        GAPWATCH_DATABASE_URL: postgres!.url,
        GAPWATCH_ADMIN_SECRET: readOrCreateAdminSecret(),
        NEXT_TELEMETRY_DISABLED: "1",
      };
      const launch = async (role: "collector" | "web", n: number) => {
        const port = await findFreePort();
        checkNotStopping();
        const name = `scale-out-${role}-${n}`;
        const app = spawnTracked({
          name,
          command: process.execPath,
          args: [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"],
          cwd: repoRoot,
          logFile: path.join(demoDir, `${name}.log`),
          env: { ...env, GAPWATCH_ROLE: role, PORT: String(port) },
        });
        (role === "collector" ? collectors : webs).push(app);
        return { app, port };
      };
      const launched: { app: ManagedProcess; port: number }[] = [];
      for (let n = 1; n <= collectorCount; n++) launched.push(await launch("collector", n));
      for (let n = 1; n <= webCount; n++) launched.push(await launch("web", n));
      await Promise.all(launched.map(({ app, port }) => waitForHealth(`http://127.0.0.1:${port}/api/health`, app, 120_000)));
      checkNotStopping();
      proxy = await startRoundRobinProxy({ port: opts.port, upstreams: launched.filter((l) => webs.includes(l.app)).map((l) => ({ name: l.app.name, port: l.port })) });
      await waitForFlowsServed(`http://127.0.0.1:${opts.port}/api/flows`, scaleOutFlows, 180_000);
      recordDashboardUrl(sandbox!, url);
    } catch (err) {
      if (!stopping) await stop();
      throw err;
    }
  };

  const url = `http://localhost:${opts.port}`;
  return {
    start,
    stop,
    url,
    collectors: () => collectors,
    processes: () => [
      ...(postgres ? [{ name: "postgres", pid: postgres.pid }] : []),
      ...(sandbox ? [...sandbox.clusters.values()].map((c) => ({ name: `kafka-${c.alias}`, pid: c.process.pid })) : []),
      ...(sandbox ? [{ name: "kafka-connect (MM2)", pid: sandbox.connect.process.pid }] : []),
      ...[...collectors, ...webs].map((p) => ({ name: p.name, pid: p.pid })),
    ],
  };
}

/** The config every collector and web instance reads: three clusters, Connect, PostgreSQL, scaleOut. */
function writeScaleOutConfig(state: SandboxState): string {
  mkdirSync(demoDir, { recursive: true });
  const file = path.join(demoDir, "gapwatch.config.yaml");
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`);
  writeFileSync(
    file,
    [
      "# Written by `npm run demo -- --scale-out`; see docs/configuration.md for every setting.",
      "clusters:",
      ...clusters,
      "connect:",
      "  - name: sandbox",
      `    url: ${state.connect.url}`,
      `    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}`,
      "pollIntervalSeconds: 5",
      "configRefreshCycles: 6",
      "store:",
      "  kind: postgres",
      "  url: ${GAPWATCH_DATABASE_URL}",
      "scaleOut:",
      `  homeCluster: ${homeCluster}`,
      `  shards: ${scaleOutShards}`,
      // Short, so that a collector killed in the demo hands its shards on within seconds.
      "  sessionTimeoutMs: 10000",
      "admin:",
      "  secret: ${GAPWATCH_ADMIN_SECRET}",
      "audit:",
      "  enabled: true",
      "",
    ].join("\n"),
  );
  return file;
}

/** Waits until the public port's /api/flows lists every flow (the web instances serve what the collectors published). */
async function waitForFlowsServed(url: string, flows: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const body = (await res.json()) as { flows?: { id: string }[] };
      const served = (body.flows ?? []).map((f) => f.id);
      if (flows.every((f) => served.includes(f))) return;
      last = `HTTP ${res.status}, flows ${JSON.stringify(served)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(1000);
  }
  throw new Error(`the web instances did not serve the flows ${flows.join(", ")} within ${timeoutMs / 1000}s (last: ${last})`);
}
