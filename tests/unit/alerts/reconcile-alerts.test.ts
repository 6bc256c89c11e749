import { describe, expect, it } from "vitest";
import { createAlertId } from "@/lib/alerts/alert-id";
import { describeAlertState, isAwaitingAttention } from "@/lib/alerts/loss-alerts";
import { acknowledgeAlert, reconcileAlerts } from "@/lib/alerts/reconcile-alerts";
import type { AlertRecord, ReconcileOptions } from "@/lib/alerts/types";
import type { Finding } from "@/lib/detect/types";

const T = 1_736_910_000_000;
const options: ReconcileOptions = { resolveAfterMs: 60_000, refireAfterResolveMs: 600_000 };

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    key: "DATA_LOSS|east->west|orders|2|1200",
    type: "DATA_LOSS",
    severity: "critical",
    flow: "east->west",
    cluster: "east",
    topic: "orders",
    partition: 2,
    summary: "500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)",
    evidence: { lostCount: "500" },
    observedAt: T,
    ...overrides,
  };
}

/** Runs reconcileAlerts over (time, findings) steps; returns every step's result. */
function runSteps(steps: [number, Finding[]][], start: AlertRecord[] = []) {
  let alerts = start;
  return steps.map(([now, findings]) => {
    const result = reconcileAlerts(alerts, findings, now, options);
    alerts = result.alerts;
    return { alerts: result.alerts, transitions: result.transitions.map((t) => t.type) };
  });
}

describe("reconcileAlerts", () => {
  it("fires a new alert with a stable id derived from the key", () => {
    const [first] = runSteps([[T, [finding()]]]);
    expect(first?.transitions).toEqual(["fired"]);
    expect(first?.alerts).toEqual([
      {
        id: createAlertId("DATA_LOSS|east->west|orders|2|1200"),
        key: "DATA_LOSS|east->west|orders|2|1200",
        type: "DATA_LOSS",
        severity: "critical",
        state: "firing",
        acknowledged: null,
        flow: "east->west",
        cluster: "east",
        topic: "orders",
        partition: 2,
        group: null,
        summary: finding().summary,
        evidence: { lostCount: "500" },
        firstSeen: T,
        lastSeen: T,
        resolvedAt: null,
      },
    ]);
    expect(createAlertId("DATA_LOSS|east->west|orders|2|1200")).toMatch(/^[0-9a-f]{16}$/);
    expect(createAlertId("a")).not.toBe(createAlertId("b"));
  });

  it("does not resolve and re-page a finding that flaps within the hysteresis window", () => {
    const steps = runSteps([
      [T, [finding()]],
      [T + 10_000, []],
      [T + 50_000, []],
      [T + 60_000, [finding()]],
      [T + 100_000, []],
      [T + 119_999, []],
      [T + 120_000, []],
    ]);
    expect(steps.map((s) => s.transitions)).toEqual([["fired"], [], [], [], [], [], ["resolved"]]);
    expect(steps[6]?.alerts[0]).toMatchObject({ state: "resolved", resolvedAt: T + 120_000, lastSeen: T + 60_000 });
  });

  it("keeps the acknowledgement through updates and reports severity or summary changes once", () => {
    const [first] = runSteps([[T, [finding({ severity: "warning" })]]]);
    const acked = acknowledgeAlert(first?.alerts ?? [], createAlertId(finding().key), "alice", T + 5_000);
    const steps = runSteps(
      [
        [T + 10_000, [finding({ severity: "warning", evidence: { lostCount: "501" } })]],
        [T + 20_000, [finding({ severity: "critical" })]],
      ],
      acked,
    );
    expect(steps.map((s) => s.transitions)).toEqual([[], ["updated"]]);
    expect(steps[1]?.alerts[0]).toMatchObject({ severity: "critical", acknowledged: { by: "alice", at: T + 5_000 } });
    expect(steps[0]?.alerts[0]?.evidence).toEqual({ lostCount: "501" });
  });

  it("brings a resolved alert back as firing with the acknowledgement cleared", () => {
    const [first] = runSteps([[T, [finding()]]]);
    const acked = acknowledgeAlert(first?.alerts ?? [], createAlertId(finding().key), "alice", T + 1_000);
    const steps = runSteps(
      [
        [T + 70_000, []],
        [T + 300_000, [finding()]],
      ],
      acked,
    );
    expect(steps.map((s) => s.transitions)).toEqual([["resolved"], ["refired"]]);
    expect(steps[1]?.alerts[0]).toMatchObject({ state: "firing", acknowledged: null, resolvedAt: null, firstSeen: T, lastSeen: T + 300_000 });
  });

  it("names where a flow-level alert is now when it refires, not where it first fired", () => {
    const stall = (topic: string, partition: number) =>
      finding({ key: "TASK_STALLED|east->west", type: "TASK_STALLED", topic, partition, evidence: { partitions: `${topic}/${partition}` } });
    const steps = runSteps([
      [T, [stall("soak-stall", 0)]],
      [T + 70_000, []],
      [T + 300_000, [stall("soak-tx", 1)]],
    ]);
    expect(steps.map((s) => s.transitions)).toEqual([["fired"], ["resolved"], ["refired"]]);
    expect(steps[2]?.alerts[0]).toMatchObject({ topic: "soak-tx", partition: 1, evidence: { partitions: "soak-tx/1" }, firstSeen: T });
  });

  it("treats a recurrence after refireAfterResolveMs as a new incident", () => {
    const steps = runSteps([
      [T, [finding()]],
      [T + 70_000, []],
      [T + 70_000 + 600_000, [finding()]],
    ]);
    expect(steps.map((s) => s.transitions)).toEqual([["fired"], ["resolved"], ["fired"]]);
    expect(steps[2]?.alerts).toHaveLength(1);
    expect(steps[2]?.alerts[0]).toMatchObject({ state: "firing", firstSeen: T + 670_000 });
  });

  it("keeps one alert per key, taking the most severe duplicate finding", () => {
    const [first] = runSteps([[T, [finding({ severity: "info" }), finding({ severity: "critical" }), finding({ severity: "warning" })]]]);
    expect(first?.alerts.map((a) => a.severity)).toEqual(["critical"]);
  });

  it("never acknowledges a resolved alert that is not a loss", () => {
    const failed = finding({ key: "TASK_FAILED|connect|mm2-source", type: "TASK_FAILED", summary: "MM2 source connector mm2-source FAILED" });
    const steps = runSteps([
      [T, [failed]],
      [T + 60_000, []],
    ]);
    const resolved = steps[1]?.alerts ?? [];
    expect(resolved[0]).toMatchObject({ state: "resolved" });
    expect(describeAlertState(resolved[0]!)).toBe("resolved");
    expect(isAwaitingAttention(resolved[0]!)).toBe(false);
    expect(acknowledgeAlert(resolved, createAlertId(failed.key), "bob", T + 61_000)).toEqual(resolved);
  });

  it("keeps a loss that stopped growing open, shown as stopped growing, until someone acknowledges it", () => {
    const truncation = finding({ key: "UNCLEAN_TRUNCATION|east|orders|2|7", type: "UNCLEAN_TRUNCATION", summary: "20 records of orders/2 lost" });
    const steps = runSteps([
      [T, [finding(), truncation]],
      [T + 30_000, [finding(), truncation]],
      [T + 90_000, []],
      [T + 3_600_000, []],
    ]);
    expect(steps.map((s) => s.transitions)).toEqual([["fired", "fired"], [], ["resolved", "resolved"], []]);
    const late = steps[3]?.alerts ?? [];
    expect(late.map((a) => [a.type, a.state, describeAlertState(a), isAwaitingAttention(a)])).toEqual([
      ["DATA_LOSS", "resolved", "stopped growing", true],
      ["UNCLEAN_TRUNCATION", "resolved", "stopped growing", true],
    ]);
    const acked = acknowledgeAlert(late, createAlertId(finding().key), "carol", T + 3_601_000);
    expect(acked[0]).toMatchObject({ state: "resolved", acknowledged: { by: "carol", at: T + 3_601_000 } });
    expect(acked.map(isAwaitingAttention)).toEqual([false, true]);
  });
});
