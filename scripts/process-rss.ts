import { readdirSync, readFileSync } from "node:fs";

/** Resident set sizes (MiB, Linux /proc) of a process and of all its descendants. */
export interface TreeRss {
  self: number;
  /** GAPWATCH_ROLE=all's collector process, for a `next start` server (its only child). */
  descendants: number;
  total: number;
}

/**
 * The RSS of `pid` and, summed, of every process below it (found through /proc/<pid>/task/<tid>/children), or null
 * when `pid` is gone. Every PID of the tree is added to `seen`.
 */
export function readTreeRss(pid: number, seen = new Set<number>()): TreeRss | null {
  const self = readRssMiB(pid);
  if (self === null) return null;
  seen.add(pid);
  let descendants = 0;
  for (const child of listChildPids(pid)) {
    const below = readTreeRss(child, seen);
    if (below !== null) descendants += below.total;
  }
  return { self, descendants, total: self + descendants };
}

function readRssMiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Children of every thread of `pid` (a child spawned from a worker thread is listed under that thread). */
function listChildPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}
