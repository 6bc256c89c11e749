// GAPWATCH_ROLE=all runs its collector and pipeline in a child process (collector-process.ts at the repository root)
// so that rendering pages under HTTP load never stretches a poll cycle: the two share no event loop. The child
// publishes each cycle's read model to the SQLite file, as a collector publishes to PostgreSQL, and says so over the
// IPC channel; the server's process serves the published model as a web instance does. This file holds both ends of
// that channel: the server's (start, stop by PID, ask for the metrics) and the child's (answer, exit with the parent).
import { type ChildProcess, spawn } from "node:child_process";
import { CollectorUnavailableError } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import { resolveCollectorEntry } from "./collector-entry";

const log = getLogger("pipeline.collector-process");
/** Wait before a child that exited unasked is started again. */
const restartAfterMs = 5000;
/** SIGTERM to SIGKILL: within the demo's 10 s for the whole server (SQLite's WAL survives a kill mid-cycle). */
const graceMs = 8000;
const metricsTimeoutMs = 10_000;

/** What the two processes say over the IPC channel. */
type ParentMessage = { type: "metrics"; id: number };
type ChildMessage = { type: "published"; cycle: number } | { type: "metrics"; id: number; text: string };

/** The server's handle on its collector process. */
export interface CollectorProcess {
  /** The running child's PID (a new one after a restart), or null while none runs. */
  pid(): number | null;
  /** The child's Prometheus text (its metrics registry: cycle time, lag, alerts, readiness). */
  renderMetrics(): Promise<string>;
  /** Stops the child by PID: SIGTERM (it finishes its running cycle), SIGKILL 8 s later; no restart after this. */
  stop(): Promise<void>;
}

/**
 * Starts the collector process, and starts it again when it exits unasked (logged as an error: the pages show the
 * data's age meanwhile). The built server runs the bundle its build made; otherwise (next dev, tests) the child runs
 * lib/ from source with tsx's loader (collector-entry.ts); the "started" log line says which. `onPublished` is called
 * each time the child has published a cycle's read model.
 */
export function startCollectorProcess(onPublished: (cycle: number) => void): CollectorProcess {
  // `next start` and the scripts run in the repository root, where the entry file and .next are.
  const entry = resolveCollectorEntry(process.cwd(), process.env.NODE_ENV);
  if (entry.fallback !== null) {
    log.warn({ why: entry.fallback }, "the collector process runs from source with tsx, not built with the app");
  }
  const pending = new Map<number, { resolve(text: string): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  let nextId = 0;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | null = null;
  let child: ChildProcess;

  const failPending = (why: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(new CollectorUnavailableError(why));
      pending.delete(id);
    }
  };
  const launch = () => {
    child = spawn(process.execPath, entry.args, {
      cwd: process.cwd(),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    log.info({ pid: child.pid, entry: entry.kind, file: entry.args.at(-1) }, "collector process started");
    child.on("message", (message: ChildMessage) => {
      if (message.type === "published") return onPublished(message.cycle);
      const waiting = pending.get(message.id);
      if (waiting === undefined) return;
      clearTimeout(waiting.timer);
      pending.delete(message.id);
      waiting.resolve(message.text);
    });
    child.on("error", (err) => log.error({ err: err.message }, "collector process error"));
    child.once("exit", (code, signal) => {
      failPending(`the collector process exited (${signal ?? `code ${code}`})`);
      if (stopping) return;
      log.error({ pid: child.pid, code, signal, restartAfterMs }, "the collector process exited unasked; starting again");
      restartTimer = setTimeout(launch, restartAfterMs);
    });
  };
  launch();

  return {
    pid: () => (child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null),
    renderMetrics() {
      if (!child.connected) {
        return Promise.reject(new CollectorUnavailableError("the collector process is not running (it is being started again)"));
      }
      const id = ++nextId;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new CollectorUnavailableError(`the collector process did not answer within ${metricsTimeoutMs} ms`));
        }, metricsTimeoutMs);
        pending.set(id, { resolve, reject, timer });
        child.send({ type: "metrics", id } satisfies ParentMessage);
      });
    },
    async stop() {
      stopping = true;
      if (restartTimer !== null) clearTimeout(restartTimer);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const killTimer = setTimeout(() => {
        log.error({ pid: child.pid }, "the collector process did not stop in time; SIGKILL");
        child.kill("SIGKILL");
      }, graceMs);
      await exited;
      clearTimeout(killTimer);
      log.info({ pid: child.pid }, "collector process stopped");
    },
  };
}

/**
 * The child's end: answers the server's metrics requests with `renderMetrics`, and runs `stop` when the server's
 * process is gone (the IPC channel closed: even a SIGKILLed server leaves no collector polling on its own).
 * Returns what the child calls after each published cycle.
 */
export function serveParentProcess(
  renderMetrics: () => Promise<string>,
  stop: () => Promise<void>,
): (cycle: number) => void {
  const send = (message: ChildMessage) => {
    if (process.connected) process.send!(message);
  };
  process.on("message", (message: ParentMessage) => {
    if (message.type !== "metrics") return;
    renderMetrics()
      .then((text) => send({ type: "metrics", id: message.id, text }))
      .catch((err: unknown) => {
        log.error({ err: err instanceof Error ? err.message : String(err) }, "rendering the metrics failed");
      });
  });
  process.once("disconnect", () => {
    log.warn("the server's process is gone; stopping");
    void stop();
  });
  return (cycle) => send({ type: "published", cycle });
}
