import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { collectFlowHealthInput, rateFlowHealth } from "@/lib/views/flow-health";
import type { FlowSummary } from "@/lib/views/flows";
import { makeAlert } from "../alerts/helpers";

/** A Connect-mode flow with 2 RUNNING tasks, 1,500 records behind, heartbeats 2 s old. */
function makeSummary(overrides: Partial<FlowSummary> = {}): FlowSummary {
  return {
    id: "east->west",
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    mode: "MM2: Connect cluster connect-1",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: null },
    connectorNames: ["mm2-source", "mm2-checkpoint"],
    taskStatesKnown: true,
    sourceNotRunning: false,
    topics: 1,
    partitions: 3,
    lag: 1_500n,
    unknownPositions: 0,
    partial: null,
    heartbeatLatencyMs: 2_000,
    tasks: { RUNNING: 2 },
    errors: [],
    warnings: [],
    excludedTopics: [],
    settingNotes: [],
    ...overrides,
  };
}

const input = (summary: FlowSummary, maxPartitionLag = 900n, criticalAlerts = 0) => ({ summary, maxPartitionLag, criticalAlerts });
const limits = { lagRecords: 1_000, flowLagRecords: 5_000, lagSeconds: 30 };

describe("rateFlowHealth", () => {
  it("is healthy below every configured limit", () => {
    expect(rateFlowHealth(input(makeSummary()), limits)).toEqual({ tone: "ok", label: "Healthy", reason: null });
  });

  it("lags by the configured thresholds, not fixed numbers: a partition at lagRecords, the flow at flowLagRecords, heartbeats at lagSeconds", () => {
    expect(rateFlowHealth(input(makeSummary(), 1_000n), limits)).toEqual({ tone: "warn", label: "Lagging", reason: "a partition lags 1,000 records (limit 1,000)" });
    expect(rateFlowHealth(input(makeSummary({ lag: 5_000n })), limits)).toEqual({ tone: "warn", label: "Lagging", reason: "the flow lags 5,000 records (limit 5,000)" });
    expect(rateFlowHealth(input(makeSummary({ heartbeatLatencyMs: 30_000 })), limits)).toEqual({ tone: "warn", label: "Lagging", reason: "heartbeats are 30 s old (limit 30 s)" });
    // The same flow with the defaults (10,000 / 100,000 / 300 s) is healthy: the old fixed 60 s heartbeat limit is gone.
    expect(rateFlowHealth(input(makeSummary({ lag: 5_000n, heartbeatLatencyMs: 90_000 }), 1_000n), defaultThresholds).label).toBe("Healthy");
  });

  it("never says healthy while a critical alert of the flow is open (what makes readiness say not ready)", () => {
    expect(rateFlowHealth(input(makeSummary(), 900n, 1), limits)).toEqual({ tone: "crit", label: "1 critical alert", reason: null });
    expect(rateFlowHealth(input(makeSummary(), 900n, 3), limits).label).toBe("3 critical alerts");
    // A failed task names itself first.
    expect(rateFlowHealth(input(makeSummary({ tasks: { RUNNING: 1, FAILED: 1 } }), 900n, 1), limits).label).toBe("Task failed");
  });

  it("says partial or degraded before lagging, never healthy, when data is unknown", () => {
    const partial = { unknownPartitions: 1, reasons: ["east ListOffsets: NOT_LEADER_OR_FOLLOWER"], moreReasons: 0, dataAgeMs: 12_000 };
    expect(rateFlowHealth(input(makeSummary({ partial }), 5_000n), limits).label).toBe("Partial");
    expect(rateFlowHealth(input(makeSummary({ unknownPositions: 2 }), 5_000n), limits).label).toBe("Degraded");
  });
});

describe("collectFlowHealthInput", () => {
  const part = (partition: number, lag: bigint | null, unknown: FlowPartition["unknown"] = null) => ({ partition, lag, unknown }) as FlowPartition;
  it("takes the largest known partition lag and counts only the flow's firing critical alerts", () => {
    const flow = { id: "east->west", partitions: [part(0, 40n), part(1, 7_000n), part(2, 90_000n, { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: null }), part(3, null)] } as Flow;
    const alerts = [
      makeAlert(),
      makeAlert({ id: "a2", acknowledged: { by: "ops", at: 1 } }),
      makeAlert({ id: "a3", state: "resolved" }),
      makeAlert({ id: "a4", severity: "warning", type: "REPLICATION_LAG" }),
      makeAlert({ id: "a5", flow: "west->east" }),
    ];
    const got = collectFlowHealthInput(makeSummary(), flow, alerts);
    expect([got.maxPartitionLag, got.criticalAlerts]).toEqual([7_000n, 2]);
  });
});
