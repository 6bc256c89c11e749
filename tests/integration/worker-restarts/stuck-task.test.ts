import { afterAll, describe, expect, it } from "vitest";
import { getConnectors } from "@/lib/connect";
import type { Connector } from "@/lib/connect/types";
import { restartConnectWorker, startSecondConnectWorker, stopConnectWorker } from "@/lib/sandbox/connect-control";
import type { SandboxConnectWorker } from "@/lib/sandbox/connect-worker";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep, stopProcess } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { createSandboxRuntime, cycleUntil, waitUntilReplicating } from "../support/runtime";

/**
 * A task stuck UNASSIGNED, reproduced for real: a second Connect worker joins the sandbox's group and takes some of
 * MM2's connectors and tasks, then leaves the group (graceful stop: its tasks are written UNASSIGNED); the leader
 * waits `scheduled.rebalance.max.delay.ms` (here 120 s, production's default 300 s) before giving them to another
 * worker. Expected: TASK_NOT_RUNNING for exactly the connectors and tasks Connect's REST API shows UNASSIGNED, with
 * the worker that left and how long, once they stayed so for `notRunningAfterMs`, and nothing before.
 */
const state = readSandboxState();
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const names = connectorNames("east", "west");
const notRunningAfterMs = 15_000;
const delay = ["scheduled.rebalance.max.delay.ms=120000"];
const runtime = createSandboxRuntime(state, 5, { notRunningAfterMs });
let second: SandboxConnectWorker | null = null;

const isMirror = (c: Connector) => c.connectorClass.startsWith("org.apache.kafka.connect.mirror.");

/** `connector` or `connector|task` of every MM2 connector and task in one of `states`, with its worker. */
function listParts(connectors: readonly Connector[], states: readonly string[]): { key: string; workerId: string }[] {
  return connectors.filter(isMirror).flatMap((c) => [
    ...(states.includes(c.state) ? [{ key: c.name, workerId: c.workerId }] : []),
    ...c.tasks.filter((t) => states.includes(t.state)).map((t) => ({ key: `${c.name}|${t.id}`, workerId: t.workerId })),
  ]);
}

/** Polls Connect until `check` gives a non-empty answer. */
async function waitForConnect<T>(check: (connectors: Connector[]) => T[], what: string, timeoutMs = 120_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const connectors = await getConnectors(endpoint).catch(() => [] as Connector[]);
    const found = check(connectors);
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1000);
  }
}

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  if (second !== null) await stopProcess(second.process);
  // The sandbox's worker back with its usual settings (no rebalance delay).
  await stopConnectWorker();
  await restartConnectWorker(state);
  await waitUntilReplicating(state);
});

describe("a worker leaves the Connect group holding MM2 tasks", () => {
  it("raises TASK_NOT_RUNNING for exactly what Connect shows UNASSIGNED, with the worker and how long", { timeout: 420_000 }, async () => {
    // The leader (the sandbox's worker) must wait before reassigning lost work, as production's default 5 min does.
    await stopConnectWorker();
    await restartConnectWorker(state, { extraProperties: delay });
    await waitForConnectorsRunning(endpoint, [names.source, names.heartbeat]);
    second = await startSecondConnectWorker(state, delay);
    const secondId = `127.0.0.1:${second.port}`;
    // The rebalance moves MM2's connectors and tasks in steps: once some run there, 10 s more for it to settle.
    const onSecond = (cs: Connector[]) => listParts(cs, ["RUNNING"]).filter((p) => p.workerId === secondId);
    await waitForConnect(onSecond, `MM2 work running on ${secondId}`);
    await sleep(10_000);
    const held = onSecond(await getConnectors(endpoint));
    expect(held.length).toBeGreaterThan(0);
    await runtime.collector.runCycle();

    await stopProcess(second.process);
    second = null;
    // Connect's own view: what the worker wrote UNASSIGNED as it stopped it, still naming it. Each part's status is
    // written as it stops; the set is read again after 5 s, once settled.
    await waitForConnect((cs) => listParts(cs, ["UNASSIGNED"]), "UNASSIGNED MM2 work", 60_000);
    await sleep(5000);
    const unassigned = listParts(await getConnectors(endpoint), ["UNASSIGNED"]);
    const heldKeys = new Set(held.map((p) => p.key));
    expect(unassigned.every((p) => heldKeys.has(p.key) && p.workerId === secondId)).toBe(true);
    process.stderr.write(`[integration] UNASSIGNED after ${secondId} left: ${unassigned.map((p) => p.key).join(", ")} (held ${[...heldKeys].join(", ")})\n`);
    const stoppedAt = Date.now();

    const first = await runtime.collector.runCycle();
    expect(runtime.alerts.list({ type: "TASK_NOT_RUNNING" })).toEqual([]);
    expect(first.connect[0]?.notRunningSince).toBeDefined();
    const expectedKeys = unassigned.map((p) => `TASK_NOT_RUNNING|sandbox|${p.key}`).sort();
    await cycleUntil(runtime.collector, () => runtime.alerts.list({ type: "TASK_NOT_RUNNING" }).length >= expectedKeys.length, "TASK_NOT_RUNNING for each", {
      timeoutMs: 90_000,
    });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(notRunningAfterMs);
    // Still what Connect shows: the leader has not reassigned them yet (120 s delay).
    expect(listParts(await getConnectors(endpoint), ["UNASSIGNED"]).map((p) => p.key).sort()).toEqual(unassigned.map((p) => p.key).sort());
    const alerts = runtime.alerts.list({ type: "TASK_NOT_RUNNING" });
    expect(alerts.map((a) => a.key).sort()).toEqual(expectedKeys);
    for (const a of alerts) {
      expect(a).toMatchObject({ state: "firing", evidence: { connectCluster: "sandbox", state: "UNASSIGNED", workerId: secondId } });
      expect(a.severity).toBe(a.evidence.role === "source" ? "critical" : "warning");
      expect(a.summary).toContain(`has been UNASSIGNED on worker ${secondId} for`);
      expect(Number(a.evidence.notRunningForMs)).toBeGreaterThanOrEqual(notRunningAfterMs);
    }
  });
});
