import { describe, expect, it } from "vitest";
import { readSandboxState } from "@/lib/sandbox/state";
import { runCrashRestart } from "@/scripts/hardening/crash-restart";
import { waitUntilReplicating } from "../support/runtime";

/**
 * Issue 15 item 4, short form of `npm run hardening -- --crash-kills 20`: the runtime in its own process, polling the
 * sandbox under workload with MM2's source paused (lag alerts fire), SIGKILLed by PID mid-cycle 3 times.
 */
describe("the runtime killed with SIGKILL mid-cycle", () => {
  it("keeps an intact database, loses at most the cycle in flight, and notifies every transition exactly once", async () => {
    const state = readSandboxState();
    const report = await runCrashRestart(state, 3, (line) => process.stdout.write(`[crash-restart] ${line}\n`));
    // MM2 was paused and resumed: the next file starts on a sandbox that copies again.
    await waitUntilReplicating(state);
    process.stdout.write(`[crash-restart] ${JSON.stringify({ ...report, kills: undefined })}\n`);
    expect(report.kills.map((k) => [k.kill, k.integrity, k.completeCyclesMissing])).toEqual([[1, "ok", 0], [2, "ok", 0], [3, "ok", 0]]);
    expect(report.maxCyclesLost).toBeLessThanOrEqual(1);
    expect(report.transitionsRecorded).toBeGreaterThanOrEqual(1);
    expect([report.lost, report.duplicated]).toEqual([[], []]);
  }, 240_000);
});
