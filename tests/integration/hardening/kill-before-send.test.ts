import { describe, expect, it } from "vitest";
import { readSandboxState } from "@/lib/sandbox/state";
import { runKillBeforeSend } from "@/scripts/hardening/crash-restart";

/**
 * Issue 15, the notification outbox: the runtime (its own process, polling the sandbox under workload with lag alerts
 * firing) is SIGKILLed when it is about to send its first notification — after the cycle's store write, before the
 * send — and restarted on the same database.
 */
describe("the runtime killed between a transition's store write and its send", () => {
  it("delivers each notification the killed process owed exactly once after the restart", async () => {
    const report = await runKillBeforeSend(readSandboxState(), (line) => process.stdout.write(`[kill-before-send] ${line}\n`));
    process.stdout.write(`[kill-before-send] ${JSON.stringify(report)}\n`);
    expect(report.deliveredBeforeKill).toBe(0);
    expect(report.pendingAtKill.length).toBeGreaterThanOrEqual(1);
    expect(Object.values(report.deliveredAfterRestart)).toEqual(report.pendingAtKill.map(() => 1));
    expect([report.duplicated, report.pendingAfterRestart]).toEqual([[], []]);
  }, 240_000);
});
