import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gapwatchDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import type { PostgresServer } from "@/lib/sandbox/postgres";

/**
 * The scale-out demo's PostgreSQL runs outside the sandbox's pidfiles (lib/sandbox/postgres.ts starts it as the
 * `postgres` user, in a folder of its own), so its PID and folder are recorded here: a run after a crash stops the
 * server a crashed run left, by that PID, and removes its folder.
 */
const recordFile = path.join(gapwatchDir, "demo", "scale-out-postgres.json");

export function recordPostgres(server: PostgresServer): void {
  mkdirSync(path.dirname(recordFile), { recursive: true });
  writeFileSync(recordFile, JSON.stringify({ pid: server.pid, dir: server.dir }));
}

export function forgetPostgres(): void {
  rmSync(recordFile, { force: true });
}

/**
 * Stops the PostgreSQL a crashed run left (fast shutdown, SIGINT; SIGKILL after 15 s) and removes its folder. The
 * PID is signalled only while its command line still names the recorded folder, so a reused PID is never touched.
 * Returns what it stopped, or null.
 */
export async function stopStalePostgres(): Promise<string | null> {
  if (!existsSync(recordFile)) return null;
  const { pid, dir } = JSON.parse(readFileSync(recordFile, "utf8")) as { pid: number; dir: string };
  let stopped: string | null = null;
  if (commandLineOf(pid).includes(dir)) {
    process.kill(pid, "SIGINT");
    const deadline = Date.now() + 15_000;
    while (commandLineOf(pid) !== "" && Date.now() < deadline) await sleep(100);
    if (commandLineOf(pid) !== "") process.kill(pid, "SIGKILL");
    while (commandLineOf(pid) !== "") await sleep(50);
    stopped = `postgres (pid ${pid})`;
  }
  rmSync(dir, { recursive: true, force: true });
  forgetPostgres();
  return stopped;
}

/** The process's command line, or "" once it is gone (a zombie's is empty too). */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}
