// Issue 15 item 5: the built app (`next start`, its own process) polling the sandbox under workload, loaded by
// `connections` autocannon clients for `seconds` mixing every route with bad requests (bad JSON, oversized bodies,
// unknown parameters, unknown names, unauthenticated admin calls), while slow clients trickle requests a byte at a
// time. Reports responses by status (no 5xx allowed), the peak RSS of the server, of its collector process and of
// both, and the collector's cycles before and during the load: count, mean, p95 and max, from the collector's own
// "cycle done" log lines, so a scrape slowed by the load neither delays nor skews them. At the end the server gets
// SIGTERM; every process of its tree (GAPWATCH_ROLE=all's collector process among them) must be gone 5 s later.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { findFreePort } from "@/lib/sandbox/free-port";
import { repoRoot } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";
import { startWorkload } from "@/lib/sandbox/workload";
import { readTreeRss } from "../process-rss";

const pollIntervalSeconds = 2;

/** A request of autocannon 8's `requests` sequence (beyond what scripts/bench/autocannon.d.ts declares). */
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What this phase reads of autocannon 8's result besides the declared fields: counts by status class and code. */
interface StatusCounts {
  "5xx": number;
  statusCodeStats: Record<string, { count: number }>;
}

/** autocannon with a request sequence per connection. */
const runAutocannon = autocannon as unknown as (
  opts: Parameters<typeof autocannon>[0] & { requests: AutocannonRequest[] },
) => Promise<Awaited<ReturnType<typeof autocannon>> & StatusCounts>;
const slowClients = 20;

export interface HttpLoadReport {
  connections: number;
  seconds: number;
  requests: number;
  byStatus: Record<string, number>;
  status5xx: number;
  errors: number;
  timeouts: number;
  /** The worst p99 of the 8 client groups. */
  p99Ms: number;
  /** Slowloris sockets: how many the server closed, and the longest it held one (s; Node's default allows ~90). */
  slowClients: { opened: number; closedByServer: number; answered5xx: number; longestHeldSeconds: number };
  /** Peak RSS, MiB, sampled every 250 ms: `next start`'s own, its collector process's (role all), their sum. */
  peakRssMiB: { server: number; collector: number; total: number };
  /** PIDs of the server's process tree (the collector process among them) still running 5 s after its SIGTERM. */
  processesLeft: number[];
  /** The collector's cycles that finished in the idle half-period before the load, and during the load. */
  cycles: { idle: CycleStats; load: CycleStats };
}

/**
 * The cycles that finished in a window: `poll` is the collector's poll (gapwatch_collector_cycle_seconds), `total` the
 * whole cycle with the store write and the pipeline; count, then mean, p95 and max in seconds.
 */
interface CycleStats {
  count: number;
  poll: DurationStats;
  total: DurationStats;
}

interface DurationStats {
  mean: number;
  p95: number;
  max: number;
}

/** One finished cycle: when its "cycle done" line was logged (epoch ms), its poll and its whole duration. */
interface CycleDone {
  at: number;
  durationMs: number;
  totalMs: number;
}

/**
 * Every API route and page, with the bad requests a hostile or broken client sends. The bad bodies come from this
 * very origin (`origin`, as a browser's same-origin fetch sends it), so they pass the CSRF check and reach body parsing.
 */
function listRequests(origin: string): AutocannonRequest[] {
  const flow = encodeURIComponent("east->west");
  const huge = "x".repeat(2 * 1024 * 1024);
  const json = { "content-type": "application/json", origin };
  return [
    ...[
      "/api/health", "/api/metrics", "/api/flows", `/api/flows/${flow}`, `/api/flows/${flow}/topics`, `/api/flows/${flow}/groups`,
      `/api/flows/${flow}/groups/gapwatch-fast`, `/api/flows/${flow}/groups/gapwatch-fast/failover.csv?mode=precise`,
      `/api/flows/${flow}/partitions/orders/0/history`, `/api/flows/${flow}/readiness`, `/api/flows/${flow}/coverage`,
      `/api/flows/${flow}/audit`, "/api/alerts", "/api/risks", "/api/clusters", "/api/clusters/east/topics", "/api/connect",
      "/", `/flows/${flow}`, `/flows/${flow}/topics/orders`,
    ].map((p) => ({ method: "GET", path: p })),
    // Unknown and absurd parameters, unknown names, malformed escapes.
    { method: "GET", path: `/api/flows/${flow}?limit=-1&foo=%00&sort=%%&state[]=x` },
    { method: "GET", path: `/api/flows/${flow}/groups/gapwatch-fast/failover.csv?mode=latest` },
    { method: "GET", path: `/api/flows/${flow}/partitions/orders/99999999999999999999/history?from=abc&to=-5` },
    { method: "GET", path: "/api/flows/nowhere->else" },
    { method: "GET", path: "/api/flows/%E0%A4%A" },
    { method: "GET", path: `/api/alerts?state=${"z".repeat(4000)}` },
    // Bad JSON, oversized and wrong-typed bodies, unauthenticated admin calls.
    { method: "POST", path: "/api/session", headers: json, body: "{\"secret\":" },
    { method: "POST", path: "/api/session", headers: json, body: huge },
    { method: "POST", path: "/api/session", headers: json, body: "[1,2,3]" },
    { method: "POST", path: "/api/alerts/nope/acknowledge", headers: json, body: "{}" },
    { method: "POST", path: "/api/connect/sandbox/connectors/x/tasks/0/restart", headers: json, body: huge },
    { method: "GET", path: "/api/health", headers: { cookie: "gapwatch_session=%%%garbage" } },
  ];
}

/**
 * Collects the collector's "cycle done" lines (debug level) from the server's stderr; any line at error level or above
 * is passed on to this process's stderr, as the server's own stderr was before.
 */
function collectCycles(server: ChildProcess): CycleDone[] {
  const cycles: CycleDone[] = [];
  createInterface({ input: server.stderr! }).on("line", (line) => {
    let entry: { level?: number; time?: number; msg?: string; durationMs?: number; totalMs?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      process.stderr.write(`${line}\n`);
      return;
    }
    const { msg, time, durationMs, totalMs } = entry;
    if (msg === "cycle done" && time !== undefined && durationMs !== undefined && totalMs !== undefined) {
      cycles.push({ at: time, durationMs, totalMs });
    }
    else if ((entry.level ?? 0) >= 50) process.stderr.write(`${line}\n`);
  });
  return cycles;
}

/** The cycles that finished in [from, to): their count, and mean, p95 (nearest rank) and max of both durations. */
function summariseCycles(cycles: readonly CycleDone[], from: number, to: number): CycleStats {
  const within = cycles.filter((c) => c.at >= from && c.at < to);
  return {
    count: within.length,
    poll: describeDurations(within.map((c) => c.durationMs)),
    total: describeDurations(within.map((c) => c.totalMs)),
  };
}

function describeDurations(ms: readonly number[]): DurationStats {
  if (ms.length === 0) return { mean: Number.NaN, p95: Number.NaN, max: Number.NaN };
  const seconds = ms.map((n) => n / 1000).sort((a, b) => a - b);
  const round = (n: number) => Number(n.toFixed(3));
  return {
    mean: round(seconds.reduce((sum, n) => sum + n, 0) / seconds.length),
    p95: round(seconds[Math.ceil(0.95 * seconds.length) - 1]!),
    max: round(seconds.at(-1)!),
  };
}

/** Slowloris: each client sends a request line and headers one byte every `byteEveryMs`, never finishing. */
function startSlowClients(port: number, byteEveryMs: number): { stop(): HttpLoadReport["slowClients"] } {
  const request = Buffer.from(`GET /api/flows HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${"a".repeat(4000)}\r\n\r\n`);
  let closedByServer = 0;
  let answered5xx = 0;
  let longestHeldMs = 0;
  let stopping = false;
  const sockets = Array.from({ length: slowClients }, () => {
    const socket = net.connect(port, "127.0.0.1");
    const opened = Date.now();
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < request.length && !socket.destroyed) socket.write(request.subarray(sent, ++sent));
    }, byteEveryMs);
    socket.on("data", (d: Buffer) => {
      if (/^HTTP\/1\.1 5\d\d/.test(d.toString("latin1"))) answered5xx += 1;
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      if (stopping) return;
      closedByServer += 1;
      longestHeldMs = Math.max(longestHeldMs, Date.now() - opened);
    });
    return { socket, timer };
  });
  return {
    stop() {
      stopping = true;
      for (const { socket, timer } of sockets) {
        clearInterval(timer);
        socket.destroy();
      }
      return { opened: sockets.length, closedByServer, answered5xx, longestHeldSeconds: Number((longestHeldMs / 1000).toFixed(1)) };
    },
  };
}

/** Which of `pids` still run `waitMs` after the server exited (none should: it stops its children by PID). */
async function listSurvivors(pids: ReadonlySet<number>, waitMs: number): Promise<number[]> {
  const isRunning = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + waitMs;
  while ([...pids].some(isRunning) && Date.now() < deadline) await sleep(250);
  return [...pids].filter(isRunning);
}

async function waitForCycles(done: readonly CycleDone[], server: ChildProcess, cycles: number): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`http-load: next start exited with ${server.exitCode}`);
    if (done.length >= cycles) return;
    if (Date.now() > deadline) throw new Error(`http-load: the server did not complete ${cycles} cycles within 180 s`);
    await sleep(1000);
  }
}

/** Runs the load against a `next start` of the built app (.next) pointed at the running sandbox `state`. */
export async function runHttpLoad(state: SandboxState, connections: number, seconds: number, log: (line: string) => void): Promise<HttpLoadReport> {
  if (!existsSync(path.join(repoRoot, ".next", "BUILD_ID"))) throw new Error("http-load needs the built app: run `npm run build` first");
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-load-"));
  const config = path.join(dir, "gapwatch.config.yaml");
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  writeFileSync(config, `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: ${pollIntervalSeconds}\n`);
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const workload = await startWorkload({ bootstrap: state.clusters.east!.bootstrap, ratePerSecond: 20 });
  const server = spawn(process.execPath, [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      GAPWATCH_CONFIG: config,
      GAPWATCH_DB: path.join(dir, "gapwatch.db"),
      GAPWATCH_ADMIN_SECRET: randomBytes(24).toString("hex"),
      // Debug for the collector's "cycle done" lines; collectCycles passes on only errors.
      GAPWATCH_LOG_LEVEL: "debug",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const done = collectCycles(server);
  const peak = { server: 0, collector: 0, total: 0 };
  const treePids = new Set<number>();
  const sampler = setInterval(() => {
    const rss = readTreeRss(server.pid!, treePids);
    if (rss === null) return;
    peak.server = Math.max(peak.server, rss.self);
    peak.collector = Math.max(peak.collector, rss.descendants);
    peak.total = Math.max(peak.total, rss.total);
  }, 250);
  let report: Omit<HttpLoadReport, "processesLeft">;
  try {
    await waitForCycles(done, server, 3);
    log(`server ${server.pid} up on ${base}; measuring the cycle time unloaded for ${seconds / 2} s…`);
    const quietFrom = Date.now();
    await sleep((seconds / 2) * 1000);
    const loadFrom = Date.now();
    log(`${connections} clients on ${listRequests(base).length} requests for ${seconds} s, ${slowClients} slow clients…`);
    const slow = startSlowClients(port, 500);
    // Every connection walks the sequence from its start: 8 groups, each starting at another eighth of it, so that a
    // slow server still sees every request early.
    const requests = listRequests(base);
    const groups = 8;
    const results = await Promise.all(
      Array.from({ length: groups }, (_, g) => {
        const from = Math.floor((g * requests.length) / groups);
        const rotated = [...requests.slice(from), ...requests.slice(0, from)];
        return runAutocannon({ url: base, connections: Math.ceil(connections / groups), duration: seconds, timeout: 30, requests: rotated });
      }),
    );
    const slowReport = slow.stop();
    const byStatus: Record<string, number> = {};
    for (const r of results) for (const [code, stat] of Object.entries(r.statusCodeStats)) byStatus[code] = (byStatus[code] ?? 0) + stat.count;
    const total = (pick: (r: (typeof results)[number]) => number) => results.reduce((sum, r) => sum + pick(r), 0);
    const loadTo = Date.now();
    report = {
      connections: groups * Math.ceil(connections / groups),
      seconds,
      requests: total((r) => r.requests.total),
      byStatus,
      status5xx: total((r) => r["5xx"]),
      errors: total((r) => r.errors),
      timeouts: total((r) => r.timeouts),
      p99Ms: Math.max(...results.map((r) => r.latency.p99)),
      slowClients: slowReport,
      peakRssMiB: { server: Math.round(peak.server), collector: Math.round(peak.collector), total: Math.round(peak.total) },
      cycles: { idle: summariseCycles(done, quietFrom, loadFrom), load: summariseCycles(done, loadFrom, loadTo) },
    };
  } finally {
    clearInterval(sampler);
    server.kill("SIGTERM");
    await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once("exit", resolve)));
    await workload.stop();
  }
  return { ...report, processesLeft: await listSurvivors(treePids, 5000) };
}
