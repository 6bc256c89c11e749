import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { pidDir, sandboxDir } from "./paths";

const log = getLogger("sandbox.processes");

/** A child process the sandbox started: known by PID, recorded in a pidfile until stopped. */
export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves with the exit code (or null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  hasExited: () => boolean;
}

export interface JavaProcessSpec {
  name: string;
  classpath: string;
  mainClass: string;
  args: string[];
  jvmOptions: string[];
  logFile: string;
}

/** Starts a JVM as a tracked process (see spawnTracked). */
export function spawnJava(spec: JavaProcessSpec): ManagedProcess {
  return spawnTracked({
    name: spec.name,
    command: "java",
    args: [...spec.jvmOptions, "-cp", spec.classpath, spec.mainClass, ...spec.args],
    logFile: spec.logFile,
  });
}

export interface TrackedProcessSpec {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Starts a child in its own process group (so a terminal's Ctrl-C reaches only us, and we stop
 * children in order), output appended to `logFile`, PID written to `<pidDir>/<name>.pid`, and
 * GAPWATCH_OWNER set to this sandbox's directory so a later run can tell its leftovers apart.
 */
export function spawnTracked(spec: TrackedProcessSpec): ManagedProcess {
  mkdirSync(pidDir, { recursive: true });
  mkdirSync(path.dirname(spec.logFile), { recursive: true });
  const fd = openSync(spec.logFile, "a");
  const child = spawn(spec.command, spec.args, {
    detached: true,
    stdio: ["ignore", fd, fd],
    cwd: spec.cwd,
    env: { ...(spec.env ?? process.env), GAPWATCH_OWNER: sandboxDir },
  });
  closeSync(fd);
  // Not tied to our event loop: `sandbox up` exits and leaves the JVMs running (pidfiles track them).
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${spec.command} for ${spec.name}`);
  const pid = child.pid;
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      done = true;
      resolve(code);
    });
    child.on("error", (err) => {
      log.error({ name: spec.name, err: err.message }, "process error");
      done = true;
      resolve(null);
    });
  });
  writeFileSync(pidFileOf(spec.name), JSON.stringify({ pid, name: spec.name, sandboxDir, startedAt: new Date().toISOString() }));
  log.info({ name: spec.name, pid, logFile: spec.logFile }, "started");
  return { name: spec.name, pid, logFile: spec.logFile, exited, hasExited: () => done };
}

/** Stops one process by PID: SIGTERM, then SIGKILL after `graceMs`. Removes its pidfile. */
export async function stopProcess(proc: { name: string; pid: number }, graceMs = 15_000): Promise<void> {
  if (isAlive(proc.pid)) {
    signal(proc.pid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (isAlive(proc.pid) && Date.now() < deadline) await sleep(100);
    if (isAlive(proc.pid)) {
      log.warn({ name: proc.name, pid: proc.pid }, "did not stop after SIGTERM; sending SIGKILL");
      signal(proc.pid, "SIGKILL");
      while (isAlive(proc.pid)) await sleep(50);
    }
    log.info({ name: proc.name, pid: proc.pid }, "stopped");
  }
  // A restarted process under the same name (e.g. a Connect worker a test killed and started
  // again) owns the pidfile now: removing it would leave that process untracked.
  const file = pidFileOf(proc.name);
  if (readPidFile(file)?.pid === proc.pid) rmSync(file, { force: true });
}

/** Stops, gracefully (SIGTERM, then SIGKILL after `graceMs`), the sandbox process a pidfile names. */
export async function stopRecordedProcess(name: string): Promise<void> {
  const record = readPidFile(pidFileOf(name));
  if (!record || !isAlive(record.pid) || !isOurs(record.pid)) throw new Error(`no running sandbox process named ${name}`);
  await stopProcess(record);
}

/**
 * Sends SIGKILL to the process a pidfile names (as an OOM kill or a node loss does) and waits
 * until it is gone. Only a process that still names this sandbox is signalled; the pidfile stays
 * until `stopProcess` or the next start under that name replaces it.
 */
export async function killRecordedProcess(name: string): Promise<number> {
  const record = readPidFile(pidFileOf(name));
  if (!record || !isAlive(record.pid) || !isOurs(record.pid)) throw new Error(`no running sandbox process named ${name}`);
  signal(record.pid, "SIGKILL");
  while (isAlive(record.pid)) await sleep(50);
  log.warn({ name, pid: record.pid }, "killed with SIGKILL");
  return record.pid;
}

/**
 * Stops processes left behind by an earlier run that crashed, from their pidfiles. A PID is only
 * signalled when its command line or environment still names this sandbox's directory, so a
 * reused PID of an unrelated process is never touched.
 */
export async function stopStaleProcesses(): Promise<string[]> {
  if (!existsSync(pidDir)) return [];
  const stopped: string[] = [];
  for (const file of readdirSync(pidDir).filter((f) => f.endsWith(".pid"))) {
    const full = path.join(pidDir, file);
    const record = readPidFile(full);
    if (record && isAlive(record.pid) && isOurs(record.pid)) {
      await stopProcess(record);
      stopped.push(`${record.name} (pid ${record.pid})`);
    }
    rmSync(full, { force: true });
  }
  return stopped;
}

/** Live processes recorded in pidfiles (for `sandbox status`). */
export function listRecordedProcesses(): { name: string; pid: number; alive: boolean }[] {
  if (!existsSync(pidDir)) return [];
  return readdirSync(pidDir)
    .filter((f) => f.endsWith(".pid"))
    .map((f) => readPidFile(path.join(pidDir, f)))
    .filter((r): r is { name: string; pid: number } => r !== null)
    .map((r) => ({ ...r, alive: isAlive(r.pid) && isOurs(r.pid) }));
}

/** Last `lines` lines of a log file, for error messages when a JVM does not start. */
export function tailFile(file: string, lines = 30): string {
  if (!existsSync(file)) return "(no log file)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

function pidFileOf(name: string): string {
  return path.join(pidDir, `${name}.pid`);
}

function readPidFile(file: string): { name: string; pid: number } | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (parsed && typeof parsed === "object" && "pid" in parsed && "name" in parsed) {
      const { pid, name } = parsed as { pid: unknown; name: unknown };
      if (typeof pid === "number" && typeof name === "string") return { pid, name };
    }
  } catch {
    // An unreadable pidfile is treated as absent; it is removed by the caller.
  }
  return null;
}

function isOurs(pid: number): boolean {
  return commandLineOf(pid).includes(sandboxDir) || readProcFile(pid, "environ").split("\0").includes(`GAPWATCH_OWNER=${sandboxDir}`);
}

function readProcFile(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return "";
  }
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
