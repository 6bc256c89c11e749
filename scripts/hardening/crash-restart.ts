// Issue 15 item 4: the server's runtime (runtime-child.ts, its own process) polls the sandbox under workload and is
// killed with SIGKILL, by PID, in the middle of a cycle, again and again. After each kill: the SQLite database opens,
// `PRAGMA integrity_check` is ok, every cycle the process reported complete still has its samples (so at most the
// cycle in flight is lost); at the end, a webhook receiver's deliveries are compared with the alert transitions the
// database recorded: none lost, none delivered twice. MM2's source connector is paused while the kills run, and lag
// thresholds of 1 record and 1 s make REPLICATION_LAG alerts fire, so there are transitions to lose or repeat (under
// the workload alone, a quiet machine's MM2 kept up and none fired: a CI run on 2026-12-02).
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { findFreePort } from "@/lib/sandbox/free-port";
import { runLag, runResume } from "@/lib/sandbox/scenarios/lag";
import { repoRoot } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";
import { ensureTopics } from "@/lib/sandbox/topics";
import { startWorkload } from "@/lib/sandbox/workload";
import { decodePack } from "@/lib/store/sample-pack";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

const pollIntervalSeconds = 2;

/** One SIGKILL and what the database showed after it. */
export interface KillReport {
  kill: number;
  /** How far into the running cycle the kill landed (ms since its start line). */
  msIntoCycle: number;
  integrity: string;
  /** Cycles the process reported complete before the kill whose samples are missing (must be 0). */
  completeCyclesMissing: number;
  /** The cycle in flight when killed (0 or 1): the only samples a kill may lose. */
  cyclesLost: number;
  /** Seconds from the last stored cycle before the kill to the first after the restart. */
  gapSeconds: number;
}

export interface CrashRestartReport {
  kills: KillReport[];
  /** Alert transitions (fired, refired, resolved) the database recorded, and how the webhook received them. */
  transitionsRecorded: number;
  transitionsDelivered: number;
  lost: string[];
  duplicated: string[];
  allIntegrityOk: boolean;
  maxCyclesLost: number;
}

interface ChildLine {
  event: "start" | "done";
  at?: number;
  takenAt?: number;
}

/** A running runtime-child.ts: its process and the cycles it reported. */
interface RunningChild {
  process: ChildProcess;
  started: number[];
  done: number[];
  /** Start line to done line of each complete cycle, ms: the kill's random delay is drawn within the longest. */
  durations: number[];
  exited: Promise<NodeJS.Signals | number | null>;
}

function spawnChild(env: Record<string, string>): RunningChild {
  // node itself (not the tsx wrapper, which would leave its node child running): one PID, one process to kill.
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "scripts/hardening/runtime-child.ts")], {
    cwd: repoRoot,
    env: { ...process.env, ...env, GAPWATCH_LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const running: RunningChild = {
    process: child,
    started: [],
    done: [],
    durations: [],
    exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code))),
  };
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("{")) return;
    const event = JSON.parse(line) as ChildLine;
    if (event.event === "start") running.started.push(event.at!);
    else {
      running.done.push(event.takenAt!);
      running.durations.push(Date.now() - running.started.at(-1)!);
    }
  });
  return running;
}

async function waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`crash-restart: timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(50);
  }
}

/** Counts webhook deliveries per `alertId|transition` (Gapwatch's json format). */
function startReceiver(port: number): { server: Server; deliveries: Map<string, number> } {
  const deliveries = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { transitions: { type: string; alert: { id: string } }[] };
      for (const t of body.transitions.filter((x) => x.type !== "updated")) {
        const key = `${t.alert.id}|${t.type}`;
        deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      }
      res.writeHead(200).end("ok");
    });
  });
  server.listen(port, "127.0.0.1");
  return { server, deliveries };
}

/** Opens the database as the next server start would and checks it; returns its integrity and stored cycle times. */
function inspectDatabase(file: string): { integrity: string; sampleTimes: Set<number> } {
  const db = new Database(file);
  try {
    const integrity = (db.pragma("integrity_check") as { integrity_check: string }[]).map((r) => r.integrity_check).join("; ");
    // Packed history (migration 7): a cycle's samples are staged, then packed per partition and 5-minute bucket.
    const staged = db.prepare("SELECT DISTINCT at FROM partition_staged").pluck().all() as number[];
    const packs = db.prepare("SELECT data FROM partition_packs WHERE tier = 0").pluck().all() as Buffer[];
    return { integrity, sampleTimes: new Set([...staged, ...packs.flatMap((data) => decodePack(data, 5).map((p) => p.at))]) };
  } finally {
    db.close();
  }
}

/** `alertId|transition` of every fired, refired and resolved transition the database's timeline holds. */
function readRecordedTransitions(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT kind, data FROM events WHERE kind IN ('alert-fired', 'alert-refired', 'alert-resolved') ORDER BY id").all() as { kind: string; data: string }[];
    return rows.map((r) => `${(JSON.parse(r.data) as { id: string }).id}|${r.kind.slice("alert-".length)}`);
  } finally {
    db.close();
  }
}

/** `alertId|transition` of every outbox row neither delivered nor dropped (notification outbox, migration 8). */
function readPendingOutbox(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT alert_id, transition FROM notification_outbox WHERE finished_at IS NULL ORDER BY id").all() as { alert_id: string; transition: string }[];
    return rows.map((r) => `${r.alert_id}|${r.transition}`);
  } finally {
    db.close();
  }
}

/** The kill between a cycle's store write and its first notification, and what the restart delivered. */
export interface KillBeforeSendReport {
  /** Outbox rows the killed process had written but not sent (`alertId|transition`). */
  pendingAtKill: string[];
  deliveredBeforeKill: number;
  /** Deliveries per pending row after the restart (each must be 1). */
  deliveredAfterRestart: Record<string, number>;
  /** Anything the receiver got more than once. */
  duplicated: string[];
  /** Rows pending at the kill still in the outbox after the restart (a later transition may wait for its send). */
  pendingAfterRestart: string[];
}

/**
 * The runtime SIGKILLs itself (GAPWATCH_KILL_AT_SEND, runtime-child.ts) when it is about to POST its first
 * notification: the alerts and their outbox rows are stored, nothing is sent. A restarted runtime on the same
 * database must deliver each of those rows exactly once, and the receiver must get nothing twice.
 */
export async function runKillBeforeSend(state: SandboxState, log: (line: string) => void): Promise<KillBeforeSendReport> {
  const { env, dbFile, hookUrl, receiver, stop } = await setUpRun(state);
  let child = spawnChild({ ...env, GAPWATCH_KILL_AT_SEND: hookUrl });
  try {
    const signal = await Promise.race([child.exited, sleep(120_000).then(() => "no notification within 120 s")]);
    if (signal !== "SIGKILL") throw new Error(`kill-before-send: the runtime was not killed at its first send (${String(signal)})`);
    const pendingAtKill = readPendingOutbox(dbFile);
    const deliveredBeforeKill = [...receiver.deliveries.values()].reduce((a, b) => a + b, 0);
    log(`killed at the first send after ${child.done.length} cycles; outbox rows pending: ${pendingAtKill.join(", ")}`);
    child = spawnChild(env);
    await waitFor(() => pendingAtKill.every((k) => receiver.deliveries.has(k)), "the pending notifications after the restart", 60_000);
    // Two more cycles: nothing is delivered again.
    const cycles = child.done.length;
    await waitFor(() => child.done.length >= cycles + 2, "two cycles after the delivery", 60_000);
    return {
      pendingAtKill,
      deliveredBeforeKill,
      deliveredAfterRestart: Object.fromEntries(pendingAtKill.map((k) => [k, receiver.deliveries.get(k) ?? 0])),
      duplicated: [...receiver.deliveries].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`),
      // Only what the killed process owed: a transition of a cycle after the restart may be stored and not yet sent.
      pendingAfterRestart: readPendingOutbox(dbFile).filter((k) => pendingAtKill.includes(k)),
    };
  } finally {
    child.process.kill("SIGTERM");
    await child.exited;
    await stop();
  }
}

/** A run's workload, webhook receiver and database: a topic of its own under a 30 records/s workload. */
interface RunSetup {
  env: { GAPWATCH_CONFIG: string; GAPWATCH_DB: string };
  dbFile: string;
  hookUrl: string;
  receiver: { server: Server; deliveries: Map<string, number> };
  stop(): Promise<void>;
}

async function setUpRun(state: SandboxState): Promise<RunSetup> {
  const east = state.clusters.east!.bootstrap;
  const topic = `crash-${randomUUID().slice(0, 8)}`;
  await ensureTopics(east, [{ topic, partitions: 3 }]);
  const workload = await startWorkload({ bootstrap: east, ratePerSecond: 30, topics: [{ topic, partitions: 3 }], groups: false, run: topic });
  const port = await findFreePort();
  const receiver = startReceiver(port);
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-crash-"));
  const config = path.join(dir, "gapwatch.config.yaml");
  const dbFile = path.join(dir, "gapwatch.db");
  const hookUrl = `http://127.0.0.1:${port}/hook`;
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  writeFileSync(
    config,
    `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\n    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}\npollIntervalSeconds: ${pollIntervalSeconds}\n` +
      `thresholds: {"lagRecords": 1, "lagSeconds": 1}\nnotifications:\n  webhooks:\n    - url: ${hookUrl}\n      format: json\n`,
  );
  return {
    env: { GAPWATCH_CONFIG: config, GAPWATCH_DB: dbFile },
    dbFile,
    hookUrl,
    receiver,
    stop: async () => {
      await workload.stop();
      await new Promise((resolve) => receiver.server.close(resolve));
    },
  };
}

/** Runs `kills` SIGKILLs of the runtime against the running sandbox `state`; `log` gets one line per kill. */
export async function runCrashRestart(state: SandboxState, kills: number, log: (line: string) => void): Promise<CrashRestartReport> {
  const { env, dbFile, receiver, stop } = await setUpRun(state);
  const reports: KillReport[] = [];
  let child = spawnChild(env);
  let paused = false;
  try {
    await waitFor(() => child.done.length >= 2, "the first two cycles", 60_000);
    await runLag(state, { seconds: 0 });
    paused = true;
    for (let kill = 1; kill <= kills; kill++) {
      // Kill at a random point of the next cycle: its start line, then within the shortest cycle seen.
      const startsBefore = child.started.length;
      await waitFor(() => child.started.length > startsBefore, "a cycle start", 30_000);
      await sleep(Math.floor(Math.random() * 0.9 * Math.min(...child.durations)));
      const msIntoCycle = Date.now() - child.started.at(-1)!;
      child.process.kill("SIGKILL");
      const signal = await child.exited;
      if (signal !== "SIGKILL") throw new Error(`crash-restart: the runtime exited with ${signal}, not by the SIGKILL`);
      const inFlight = child.started.length > child.done.length ? 1 : 0;
      const { integrity, sampleTimes } = inspectDatabase(dbFile);
      const missing = child.done.filter((t) => !sampleTimes.has(t)).length;
      const lastBefore = Math.max(...sampleTimes);
      child = spawnChild(env);
      await waitFor(() => child.done.length >= 2, "two cycles after the restart", 60_000);
      const report = { kill, msIntoCycle, integrity, completeCyclesMissing: missing, cyclesLost: inFlight, gapSeconds: Number(((child.done[0]! - lastBefore) / 1000).toFixed(1)) };
      reports.push(report);
      log(`kill ${kill}: ${JSON.stringify(report)}`);
    }
    await waitFor(() => readRecordedTransitions(dbFile).length > 0, "an alert transition while MM2 is paused", 60_000);
    await runResume(state);
    paused = false;
    // Let the last process deliver what is due: every recorded transition delivered, or 90 s.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && readRecordedTransitions(dbFile).some((k) => !receiver.deliveries.has(k))) await sleep(1000);
    await sleep(2 * pollIntervalSeconds * 1000);
  } finally {
    child.process.kill("SIGTERM");
    await child.exited;
    if (paused) await runResume(state);
    await stop();
  }
  const recorded = readRecordedTransitions(dbFile);
  return {
    kills: reports,
    transitionsRecorded: recorded.length,
    transitionsDelivered: [...receiver.deliveries.values()].reduce((a, b) => a + b, 0),
    lost: recorded.filter((k) => !receiver.deliveries.has(k)),
    duplicated: [...receiver.deliveries].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`),
    allIntegrityOk: reports.every((r) => r.integrity === "ok"),
    maxCyclesLost: Math.max(0, ...reports.map((r) => r.cyclesLost + r.completeCyclesMissing)),
  };
}
