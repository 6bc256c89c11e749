// Started detached by `npm run demo -- --scale-out` with the demo's PID. Once that process is gone it stops, by PID,
// whatever the demo's pidfiles and PostgreSQL record still name: nothing after a clean stop, everything when the
// demo died first — a crash, or tsx's signal relay, which SIGKILLs its child when the child does not acknowledge a
// relayed SIGINT within 30 ms (seen on a loaded machine: a second SIGINT from `npm run`'s chain during shutdown).
import { readFileSync } from "node:fs";
import { sleep, stopStaleProcesses } from "@/lib/sandbox/processes";
import { stopStalePostgres } from "./postgres-record";

const demoPid = Number(process.argv[2]);

/** Alive and not a zombie (a killed demo stays one until its parent reaps it). */
function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

if (!Number.isInteger(demoPid) || demoPid <= 0) throw new Error("usage: reaper.ts <pid of the demo>");
while (isRunning(demoPid)) await sleep(500);
const stopped = [...(await stopStaleProcesses()), await stopStalePostgres()].filter((s) => s !== null);
if (stopped.length > 0) process.stdout.write(`The demo (pid ${demoPid}) ended before stopping everything; stopped by PID: ${stopped.join(", ")}\n`);
