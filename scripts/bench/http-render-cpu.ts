import { readFileSync } from "node:fs";
import { browserAcceptEncoding } from "./http-load";

/** What one request the response cache does not answer costs the dashboard's process in CPU, by kind of answer. */
export interface RenderCpu {
  name: string;
  /** The first of the paths asked for (a topic page rotates over topics). */
  path: string;
  requests: number;
  /** CPU (user + system) of the `next start` process per request, ms. */
  cpuMsPerRequest: number;
}

/** A request carrying a cookie is never answered from the response cache (response-cache.ts): Next.js renders it. */
const uncachedCookie = "gapwatch-bench=render-cpu";

/**
 * CPU per uncached request of each target, asked one at a time, interleaved in rounds of 10 so that a burst of
 * background work (a new read model decoded) falls on every target alike. CPU, not latency: a loaded machine
 * stretches latency but not the work a render is, so this figure compares across runs where p99 cannot. What it
 * shows (2026-12-06): Next.js's own per-request work is most of a page's cost, so a page's content cannot make a
 * render an order of magnitude cheaper. Null when /proc cannot be read (not Linux).
 */
export async function measureRenderCpu(
  base: string,
  serverPid: number,
  targets: readonly { name: string; paths: readonly string[] }[],
  rounds = 15,
): Promise<RenderCpu[] | null> {
  if (readCpuMs(serverPid) === null) return null;
  const spent = targets.map(() => 0);
  const asked = targets.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    for (const [index, target] of targets.entries()) {
      const before = readCpuMs(serverPid);
      for (let i = 0; i < 10; i++) {
        const path = target.paths[(round * 10 + i) % target.paths.length]!;
        const response = await fetch(`${base}${path}`, { headers: { cookie: uncachedCookie, "accept-encoding": browserAcceptEncoding } });
        await response.arrayBuffer();
      }
      const after = readCpuMs(serverPid);
      if (before === null || after === null) return null;
      spent[index]! += after - before;
      asked[index]! += 10;
    }
  }
  return targets.map((target, index) => ({
    name: target.name,
    path: target.paths[0]!,
    requests: asked[index]!,
    cpuMsPerRequest: spent[index]! / asked[index]!,
  }));
}

/** utime + stime of `pid` in ms (Linux /proc/<pid>/stat, clock ticks of 10 ms), or null. */
function readCpuMs(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
