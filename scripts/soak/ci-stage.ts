// npm test's `soak` stage: the 5-minute chaos soak in CI mode (stall, checkpoint and retention events
// first) on a sandbox home of its own, run alongside the integration stage (which mostly waits on
// Kafka). Its output goes to a log file; the report table is printed when it ends.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { waitForFreshFile } from "../fresh-file";
import { shardHome } from "../integration-shards";

/** Fixed, so a red CI soak is repeated with `npm run soak -- --minutes 5 --seed 2026 --ci`. */
const seed = 2026;
const minutes = 5;
/** Its own GAPWATCH_HOME: ports, data directories and pidfiles never meet the integration sandbox's. */
const home = path.join(gapwatchDir, "ci-soak-home");

export interface CiSoak {
  /** Resolves when the soak passed; rejects (after printing its table) when it failed. */
  done: Promise<void>;
  /** Asks the soak to stop (SIGTERM: it stops everything it started, by PID, and writes its report). */
  stop(): void;
}

/**
 * Starts the soak. With `afterIntegrationShards` > 0 it first waits (up to 3 min) for the last integration
 * shard's sandbox to be up (scripts/fresh-file.ts says why).
 */
export function startCiSoak(say: (line: string) => void, afterIntegrationShards: number): CiSoak {
  const since = Date.now();
  let child: ReturnType<typeof spawn> | null = null;
  let stopped = false;
  const done = (async () => {
    if (afterIntegrationShards > 0) await waitForFreshFile(path.join(shardHome(afterIntegrationShards), "sandbox", "state.json"), since, 180_000, () => stopped);
    if (stopped) throw new Error("soak stopped before it started");
    mkdirSync(home, { recursive: true });
    const logFile = path.join(home, "soak.log");
    say(`[soak] ${minutes} min, seed ${seed}, CI mode, home ${shown(home)}; output in ${shown(logFile)}`);
    const out = createWriteStream(logFile);
    const args = [path.join(repoRoot, "scripts", "soak.ts"), "--minutes", String(minutes), "--seed", String(seed), "--ci"];
    const started = spawn(path.join(repoRoot, "node_modules", ".bin", "tsx"), args, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GAPWATCH_HOME: home },
    });
    child = started;
    started.stdout.pipe(out, { end: false });
    started.stderr.pipe(out, { end: false });
    const code = await new Promise<number | null>((resolve, reject) => {
      started.on("error", (err) => reject(new Error(`cannot run the soak: ${err.message}`)));
      started.on("close", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
    });
    await new Promise<void>((resolve) => out.end(resolve));
    say(`\n=== soak result (${shown(logFile)}) ===\n${readReport(logFile)}`);
    if (code !== 0) throw new Error(`the soak exited with ${code}: false or missed alerts, or an error (table above)`);
  })();
  return {
    done,
    stop() {
      stopped = true;
      child?.kill("SIGTERM");
    },
  };
}

/** A path relative to the repository when it lies inside it. */
function shown(file: string): string {
  const relative = path.relative(repoRoot, file);
  return relative.startsWith("..") ? file : relative;
}

/** The soak's report (the table and what follows it), or the log's last lines when it never got there. */
function readReport(logFile: string): string {
  const text = readFileSync(logFile, "utf8");
  const at = text.lastIndexOf("\nGapwatch soak, seed");
  return at >= 0 ? text.slice(at + 1).trimEnd() : text.split("\n").slice(-40).join("\n").trimEnd();
}
