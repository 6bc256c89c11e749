// npm test's `integration` stage: one vitest process, or (`--integration-shards N`) the integration files split in
// N shards of about equal measured time (tests/integration/alphabetical-sequencer.ts), each a vitest process on a
// sandbox of its own (its own GAPWATCH_HOME: ports, data and pidfiles never meet). The files mostly wait on Kafka,
// so shards side by side take little more than the longest one. Output lines are prefixed with the shard.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { waitForFreshFile } from "./fresh-file";
import { VitestFailures } from "./vitest-failures";

/** Running shard processes with their end: an interrupted `npm test` stops them (their teardown stops the JVMs). */
const running = new Map<ReturnType<typeof spawn>, Promise<void>>();
/** The homes of the shards started by this process. */
const shardHomes = new Set<string>();

/**
 * The sandbox home of shard `index` (1-based), below the default home: the default home's sandbox is the e2e stack's,
 * which `npm test` starts while the shards still run (a sandbox starting in a home stops what its pidfiles name).
 */
export function shardHome(index: number): string {
  return path.join(gapwatchDir, `it-shard-${index}`);
}

/** Runs every shard; each waits for the previous one's sandbox to be up before starting its own. */
export async function runIntegrationShards(shardCount: number, say: (line: string) => void): Promise<void> {
  if (!Number.isInteger(shardCount) || shardCount < 1) throw new Error(`--integration-shards must be a whole number ≥ 1, not ${shardCount}`);
  const since = Date.now();
  const runs: Promise<void>[] = [];
  const seconds = () => Math.round((Date.now() - since) / 1000);
  const spans: string[] = [];
  for (let index = 1; index <= shardCount; index++) {
    if (index > 1) await waitForFreshFile(path.join(shardHome(index - 1), "sandbox", "state.json"), since, 180_000, () => false);
    const startedAt = seconds();
    // When each shard started and ended: what tests/integration/alphabetical-sequencer.ts's split is tuned by.
    runs.push(runShard(index, shardCount, say).finally(() => spans.push(`shard ${index} ${startedAt}–${seconds()} s`)));
  }
  const results = await Promise.allSettled(runs);
  if (shardCount > 1) say(`integration shards, from the stage's start: ${spans.join(", ")}`);
  const failed = results.flatMap((r, i) => (r.status === "rejected" ? [`shard ${i + 1}: ${String(r.reason)}`] : []));
  if (failed.length > 0) throw new Error(failed.join("; "));
}

function runShard(index: number, shardCount: number, say: (line: string) => void): Promise<void> {
  const args = ["run", "--project", "integration", ...(shardCount > 1 ? [`--shard=${index}/${shardCount}`] : [])];
  shardHomes.add(shardHome(index));
  const child = spawn(path.join(repoRoot, "node_modules", ".bin", "vitest"), args, {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GAPWATCH_HOME: shardHome(index) },
  });
  const failures = new VitestFailures();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      failures.take(line);
      say(shardCount > 1 ? `[it-${index}] ${line}` : line);
    });
  }
  const ended = new Promise<void>((resolve, reject) => {
    child.on("error", (err) => reject(new Error(`cannot run vitest: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve();
      const failed = `vitest ${args.join(" ")} failed (${signal ?? `exit ${code}`})`;
      reject(new Error(failures.lines.length > 0 ? `${failed}:\n${failures.lines.join("\n")}` : failed));
    });
  }).finally(() => running.delete(child));
  running.set(child, ended);
  return ended;
}

/**
 * Interrupts every running shard (SIGINT: vitest cancels) and waits for them to end; then stops, by the PIDs in
 * each shard's pidfiles, what a cancelled file's afterAll or the global teardown did not (seen: a cancelled
 * shard left its sandbox and a 3-broker cluster running).
 */
export async function stopIntegrationShards(): Promise<void> {
  const homes = running.size > 0 ? [...shardHomes] : [];
  for (const child of running.keys()) child.kill("SIGINT");
  await Promise.allSettled(running.values());
  await Promise.allSettled(homes.map((home) => stopShardSandbox(home)));
}

/** `npm run sandbox -- down` in a shard's home: stops the processes its pidfiles name (stopStaleProcesses). */
function stopShardSandbox(home: string): Promise<void> {
  const child = spawn(path.join(repoRoot, "node_modules", ".bin", "tsx"), ["scripts/sandbox.ts", "down"], {
    cwd: repoRoot,
    stdio: "ignore",
    env: { ...process.env, GAPWATCH_HOME: home },
  });
  return new Promise((resolve) => child.on("close", () => resolve()));
}
