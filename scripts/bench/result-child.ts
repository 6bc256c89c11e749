import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "@/lib/sandbox/paths";

/** The line a bench child prints its result on: `RESULT <json>`. */
export const resultPrefix = "RESULT ";

/**
 * Runs a bench script in a child process (`tsx <script> <args>`, a size per process so each gets a fresh heap) and
 * resolves with the JSON of its `RESULT` line; its other stdout lines go to `log`, indented. SIGINT and SIGTERM of
 * this process are forwarded to the child while it runs, so an interrupted bench leaves no child behind. `root` runs
 * the script of another checkout (the previous version, scripts/bench/previous-version.ts) with its own sources.
 */
export function runResultChild<T>(
  script: string,
  args: readonly string[],
  label: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  root: string = repoRoot,
): Promise<T> {
  const tsx = path.join(root, "node_modules", ".bin", "tsx");
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [path.join(root, "scripts", "bench", script), ...args], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.once("SIGINT", forward);
    process.once("SIGTERM", forward);
    let result: T | null = null;
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith(resultPrefix)) result = JSON.parse(line.slice(resultPrefix.length)) as T;
        else log(`  ${line}`);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      if (result !== null && code === 0) resolve(result);
      else reject(new Error(`${label} exited with ${code}`));
    });
  });
}
