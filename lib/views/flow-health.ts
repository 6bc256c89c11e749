import type { AlertRecord } from "@/lib/alerts/types";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import type { Thresholds } from "@/lib/config/thresholds";
import type { ReadModel } from "@/lib/pipeline/read-model";
import type { FlowSummary } from "./flows";

/** The pill's colour; the same names as components/ui/pill.tsx's tones. */
export type HealthTone = "ok" | "warn" | "crit";

/** The flow's health pill: its colour and words, and (when lagging) which configured limit was crossed. */
export interface FlowHealth {
  tone: HealthTone;
  label: string;
  reason: string | null;
}

/** What the pill judges beyond the flow summary. */
export interface FlowHealthInput {
  summary: FlowSummary;
  /** The largest lag of one partition (records). */
  maxPartitionLag: bigint;
  /** Firing critical alerts of the flow (acknowledged ones too: acknowledging does not make data whole). */
  criticalAlerts: number;
}

type HealthLimits = Pick<Thresholds, "lagRecords" | "flowLagRecords" | "lagSeconds">;

/**
 * Flow health, in order: any FAILED task → failed; no task RUNNING (where the states are known:
 * Connect mode, or dedicated mode's status topic read) or a dedicated MM2's source connector not
 * RUNNING → not running; a critical alert of the flow open (a DATA_LOSS, a TOPIC_RESET…) → says so,
 * so the pill never calls a flow healthy that the readiness verdict calls not ready; some
 * partitions' data could not be read this cycle → partial (never healthy: nothing is judged on
 * them); errors reading MM2, or partitions whose position is unknown → degraded; lag past the
 * configured REPLICATION_LAG thresholds (lib/detect/replication-lag.ts: a partition ≥ lagRecords,
 * the flow ≥ flowLagRecords, heartbeats ≥ lagSeconds old) → lagging; otherwise healthy.
 */
export function rateFlowHealth({ summary: f, maxPartitionLag, criticalAlerts }: FlowHealthInput, limits: HealthLimits): FlowHealth {
  if ((f.tasks.FAILED ?? 0) > 0) return { tone: "crit", label: "Task failed", reason: null };
  if (f.sourceNotRunning || ((f.tasks.RUNNING ?? 0) === 0 && f.taskStatesKnown)) return { tone: "crit", label: "Not running", reason: null };
  if (criticalAlerts > 0) return { tone: "crit", label: `${criticalAlerts} critical alert${criticalAlerts === 1 ? "" : "s"}`, reason: null };
  if (f.partial !== null) return { tone: "warn", label: "Partial", reason: null };
  if (f.errors.length > 0 || f.unknownPositions > 0) return { tone: "warn", label: "Degraded", reason: null };
  const lagging = explainLag(f, maxPartitionLag, limits);
  if (lagging !== null) return { tone: "warn", label: "Lagging", reason: lagging };
  return { tone: "ok", label: "Healthy", reason: null };
}

function explainLag(f: FlowSummary, maxPartitionLag: bigint, limits: HealthLimits): string | null {
  const count = (n: bigint | number) => n.toLocaleString("en-US");
  if (maxPartitionLag >= BigInt(limits.lagRecords)) return `a partition lags ${count(maxPartitionLag)} records (limit ${count(limits.lagRecords)})`;
  if (f.lag >= BigInt(limits.flowLagRecords)) return `the flow lags ${count(f.lag)} records (limit ${count(limits.flowLagRecords)})`;
  const latency = f.heartbeatLatencyMs;
  if (latency !== null && latency >= limits.lagSeconds * 1000) return `heartbeats are ${count(Math.round(latency / 1000))} s old (limit ${count(limits.lagSeconds)} s)`;
  return null;
}

/** The largest known partition lag per partition list (one list per cycle and flow; 10,000 partitions at a scan). */
const maxLagOf = new WeakMap<readonly FlowPartition[], bigint>();

/** The pill's inputs from a cycle: the flow's largest partition lag and its firing critical alerts. */
export function collectFlowHealthInput(summary: FlowSummary, flow: Flow, alerts: readonly AlertRecord[]): FlowHealthInput {
  let maxPartitionLag = maxLagOf.get(flow.partitions);
  if (maxPartitionLag === undefined) {
    maxPartitionLag = flow.partitions.reduce((max, p) => (p.unknown === null && p.lag !== null && p.lag > max ? p.lag : max), 0n);
    maxLagOf.set(flow.partitions, maxPartitionLag);
  }
  const criticalAlerts = alerts.filter((a) => a.flow === flow.id && a.state === "firing" && a.severity === "critical").length;
  return { summary, maxPartitionLag, criticalAlerts };
}

/** The health pill of a flow in a cycle, judged by the configured thresholds. */
export function readFlowHealth(model: ReadModel, flow: Flow, summary: FlowSummary): FlowHealth {
  return rateFlowHealth(collectFlowHealthInput(summary, flow, model.alerts), getConfig().thresholds);
}
