import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "@/lib/sandbox/paths";
import { createScaleOutStack, scaleOutFlows, scaleOutShards } from "./scale-out-stack";
import { createShardWatch } from "./shard-holders";

/**
 * `npm run demo -- --scale-out`: prints the public URL, every PID and which collector holds which shards (again
 * whenever they move); Ctrl-C or SIGTERM stops every process by PID, PostgreSQL included, also during start-up.
 */
export async function runScaleOutDemo(port: number, say: (line: string) => void): Promise<void> {
  const started = Date.now();
  say("Starting the scale-out demo: PostgreSQL, three Kafka clusters with two MM2 flows (east -> west, south -> west), three collectors, two web instances behind one port…");
  // Outside our process group (a Ctrl-C does not reach it): stops what is left should this process die first.
  spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "scripts", "scale-out", "reaper.ts"), String(process.pid)], {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "inherit", "inherit"],
  }).unref();
  const stack = createScaleOutStack({ port, log: say });
  let stopping = false;
  let watch: NodeJS.Timeout | null = null;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (watch) clearInterval(watch);
    say(`\n${signal}: stopping the proxy, the web instances, the collectors, the workloads, Kafka Connect, the brokers and PostgreSQL…`);
    const processes = stack.processes();
    await stack.stop();
    say(`Stopped, by PID: ${processes.map((p) => `${p.name} ${p.pid}`).join(", ") || "nothing had started"}.`);
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  try {
    await stack.start();
  } catch (err) {
    // Stopped by a signal half-way: the shutdown above finishes and exits.
    if (stopping) return;
    throw err;
  }
  say(`Gapwatch (scale-out) is ready at ${stack.url} (started in ${((Date.now() - started) / 1000).toFixed(0)} s; admin secret in .gapwatch/demo/admin-secret; Ctrl-C stops every process below)`);
  say(`  the proxy on port ${port}: this process, pid ${process.pid}; each response names its web instance in x-gapwatch-instance`);
  for (const p of stack.processes()) say(`  ${p.name}: pid ${p.pid}`);
  const shards = createShardWatch(stack.collectors(), scaleOutFlows, scaleOutShards);
  say(`Shards (${scaleOutShards}, group gapwatch-collectors on west), from each collector's log:`);
  for (const line of shards.poll() ?? shards.describe()) say(line);
  watch = setInterval(() => {
    const moved = shards.poll();
    if (moved === null) return;
    say("Shards moved:");
    for (const line of moved) say(line);
  }, 5000);
}
