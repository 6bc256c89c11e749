import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { startAlertmanager } from "@/lib/sandbox/monitoring";
import { sleep } from "@/lib/sandbox/processes";
import { runPurge, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil } from "../support/runtime";

/**
 * Gapwatch delivers to a real Alertmanager (Debian's prometheus-alertmanager) through its API:
 * a DATA_LOSS injected for real shows in `/api/v2/alerts` with its labels and exact lost range,
 * and leaves it as soon as Gapwatch resolves it (endsAt = resolvedAt; the firing endsAt Gapwatch
 * sends is 4 minutes ahead, so only the resolution can end it within this test).
 * eventHoldMs = 5 s keeps the loss held briefly; the alert then resolves after the fixed 60 s
 * resolveAfterMs of the alert lifecycle, which makes this file take about 100 s.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const alertmanager = await startAlertmanager();
const alertsUrl = `${alertmanager.url}/api/v2/alerts`;
const runtime = createSandboxRuntime(state, 2, { eventHoldMs: 5_000 }, `notifications:\n  webhooks:\n    - url: ${alertsUrl}\n      format: alertmanager-api\n`);
const topic = `amtest-${randomUUID().slice(0, 8)}`;

interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  status: { state: string };
}

async function readAlertmanager(key: string): Promise<GettableAlert[]> {
  const response = await fetch(alertsUrl);
  expect(response.status).toBe(200);
  return ((await response.json()) as GettableAlert[]).filter((a) => a.labels.gapwatch_key === key);
}

/** Polls Alertmanager until `check` holds for the alerts with this key. */
async function waitForAlertmanager(key: string, check: (alerts: GettableAlert[]) => boolean, what: string): Promise<GettableAlert[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const alerts = await readAlertmanager(key);
    if (check(alerts)) return alerts;
    if (Date.now() > deadline) throw new Error(`Alertmanager: timed out waiting for ${what}; has ${JSON.stringify(alerts)}`);
    await sleep(250);
  }
}

async function produce(count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition: 0, value: `${seq}` })) });
  await producer.disconnect();
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  await produce(20);
  await cycleUntil(runtime.collector, (s) => s.flows[0]?.partitions.some((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n) === true, `${topic} replicated`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await alertmanager.stop();
});

describe("a real Alertmanager receives Gapwatch's alerts", () => {
  let alert: AlertRecord;

  it("a DATA_LOSS appears in /api/v2/alerts with its labels and the exact lost range", async () => {
    const report = await runPurge(state, { topic, partition: 0, records: 300, resume: false });
    try {
      await runtime.collector.runCycle();
      const firing = runtime.alerts.list({ state: "firing", type: "DATA_LOSS" }).filter((a) => a.topic === topic);
      expect(firing).toHaveLength(1);
      alert = firing[0]!;
      expect(report.lostCount).toBe("300");
      const [received] = await waitForAlertmanager(alert.key, (a) => a.length === 1, `${alert.key}`);
      expect(received!.labels).toEqual({
        alertname: "DATA_LOSS",
        severity: "critical",
        flow: "east->west",
        cluster: "east",
        topic,
        partition: "0",
        gapwatch_key: alert.key,
      });
      expect(received!.annotations.summary).toBe(alert.summary);
      expect(received!.annotations.description).toContain(`firstLostOffset=${report.firstLostOffset}, lastLostOffset=${report.lastLostOffset}, lostCount=300`);
      expect(received!.status.state).toBe("active");
      expect(Date.parse(received!.startsAt)).toBe(alert.firstSeen);
      // Firing: endsAt 4 re-send intervals (4 × 60 s) after it was sent.
      expect(Date.parse(received!.endsAt) - Date.now()).toBeGreaterThan(200_000);
    } finally {
      await runResume(state);
    }
  });

  it("leaves /api/v2/alerts when Gapwatch resolves the alert", async () => {
    // New records let MM2 copy past the gap (and write the offset sync that proves it skipped): the
    // loss is then no longer seen, and resolves eventHoldMs + 60 s later.
    await produce(10);
    await cycleUntil(runtime.collector, () => runtime.alerts.list({ type: "DATA_LOSS" }).find((a) => a.key === alert.key)?.state === "resolved", `${alert.key} resolved`, {
      timeoutMs: 150_000,
    });
    const resolved = runtime.alerts.list({ type: "DATA_LOSS" }).find((a) => a.key === alert.key)!;
    expect(resolved.resolvedAt).not.toBeNull();
    // Within 20 s: while firing, Alertmanager's endsAt is ≥ 3 minutes ahead (4 × 60 s from the last
    // re-send), so only Gapwatch's resolution can end it this soon.
    await waitForAlertmanager(alert.key, (a) => a.length === 0, `${alert.key} resolved`);
    expect(Date.now() - resolved.resolvedAt!).toBeLessThan(60_000);
  });
});
