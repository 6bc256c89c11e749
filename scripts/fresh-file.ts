import { existsSync, statSync } from "node:fs";
import { sleep } from "@/lib/sandbox/processes";

/**
 * Waits until `file` was written at or after `since` (a sandbox's state.json once it is up), for at most
 * `timeoutMs`. Sandboxes pick free ports by binding port 0: starting them one after the other keeps one from
 * taking a port another picked but has not bound yet.
 */
export async function waitForFreshFile(file: string, since: number, timeoutMs: number, isStopped: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !isStopped()) {
    if (existsSync(file) && statSync(file).mtimeMs >= since) return;
    await sleep(1000);
  }
}
