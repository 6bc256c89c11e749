/**
 * Prometheus metrics, so an existing Prometheus/Alertmanager stack can carry history and paging
 * at scale (ARCHITECTURE.md). A dedicated Registry: nothing else registering on prom-client's
 * global one can clash with or leak into Gapwatch's /metrics.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { countBlindSpots, deriveBlindSpots } from "@/lib/acls/blind-spots";
import type { Snapshot } from "@/lib/collector/types";
import { ConnectorState } from "@/lib/connect/types";
import { FindingType } from "@/lib/detect/types";
import { defaultMetricsOptions, type MetricsOptions, type SeriesSelection, selectSeries } from "./metric-series";
import { renderSelectionText } from "./metric-text";
import type { AlertRecord, RiskRecord } from "./types";

/** One set of metrics on its own registry. */
export interface GapwatchMetrics {
  registry: Registry;
  /**
   * Refreshes every gauge from the snapshot, alerts and risks; counts each cycle's errors once.
   * `options` (readMetricsOptions of the config) choose the partitions with series of their own.
   */
  updateMetrics(snapshot: Snapshot, alerts: readonly AlertRecord[], risks: readonly RiskRecord[], options?: MetricsOptions): void;
  /** Sets each flow's failover readiness (judged by lib/detect/readiness when lib/views/readiness-data.ts asks). */
  updateReadiness(verdicts: readonly FlowVerdict[]): void;
  /** The Prometheus text exposition: the registry, then the per-topic and per-partition families (metric-text.ts). */
  renderMetrics(): Promise<string>;
  /** Adds one cycle's content-audit outcomes of a flow (lib/audit: matched, mismatched, missing, duplicate, foreign). */
  countAuditResults(flow: string, counts: Readonly<Record<string, number>>): void;
}

/** One flow's failover readiness verdict: ready, degraded, not-ready or unknown. */
export interface FlowVerdict {
  flow: string;
  verdict: string;
}

const readinessVerdicts = ["ready", "degraded", "not-ready", "unknown"];

const taskStates = Object.values(ConnectorState);

/**
 * Creates the metric families. `startedAt` (epoch ms) separates losses first seen before this
 * process started — not counted again after a restart — from new ones.
 */
export function createMetrics(startedAt: number = Date.now()): GapwatchMetrics {
  const registry = new Registry();
  const registers = [registry];
  const omittedPartitions = new Gauge({ name: "gapwatch_flow_partition_series_omitted", help: "Flow partitions that qualified for series of their own but were left out by metrics.partitionSeriesLimit", labelNames: ["flow"], registers });
  const omittedTopics = new Gauge({ name: "gapwatch_flow_topic_series_omitted", help: "Flow topics left without series by metrics.topicSeriesLimit", labelNames: ["flow"], registers });
  const flowAge = new Gauge({ name: "gapwatch_flow_lag_seconds", help: "Age of the oldest source record not yet replicated in the flow, over partitions whose age is known", labelNames: ["flow"], registers });
  const flowLag = new Gauge({ name: "gapwatch_flow_lag_records", help: "Source records not yet replicated, per flow", labelNames: ["flow"], registers });
  const heartbeat = new Gauge({ name: "gapwatch_flow_heartbeat_latency_seconds", help: "Now minus the newest MM2 heartbeat on the target", labelNames: ["flow"], registers });
  const unknownPartitions = new Gauge({ name: "gapwatch_unknown_partitions", help: "Flow partitions whose data could not be read this cycle (not judged)", labelNames: ["flow"], registers });
  const unknownGroups = new Gauge({ name: "gapwatch_unknown_groups", help: "Consumer groups whose offsets could not be read this cycle (not judged)", labelNames: ["cluster"], registers });
  const blindSpots = new Gauge({
    name: "gapwatch_blind_spots",
    help: "Topics, groups or the cluster Gapwatch was denied a read of this cycle (ACL), per cluster and blind spot kind",
    labelNames: ["cluster", "kind"],
    registers,
  });
  const clusterUp = new Gauge({ name: "gapwatch_cluster_up", help: "1 when the cluster answered this cycle", labelNames: ["cluster"], registers });
  const lost = new Counter({ name: "gapwatch_lost_records_total", help: "Source records deleted before MM2 copied them (DATA_LOSS), since start", labelNames: ["flow", "topic", "partition"], registers });
  const taskState = new Gauge({ name: "gapwatch_connector_task_state", help: "1 for the current state of an MM2 connector or task, 0 for the others", labelNames: ["connect_cluster", "connector", "task", "state"], registers });
  const alertCount = new Gauge({ name: "gapwatch_alerts", help: "Alerts by type, severity and state", labelNames: ["type", "severity", "state"], registers });
  const cycleSeconds = new Histogram({ name: "gapwatch_collector_cycle_seconds", help: "Duration of a collector cycle", buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers });
  const riskCount = new Gauge({ name: "gapwatch_risks", help: "Standing risks (posture findings, never alerts) by type and cluster", labelNames: ["type", "cluster"], registers });
  const failoverReady = new Gauge({ name: "gapwatch_flow_failover_ready", help: "1 when the flow's failover readiness verdict is ready, else 0", labelNames: ["flow"], registers });
  const readiness = new Gauge({ name: "gapwatch_flow_readiness", help: "1 for the flow's current readiness verdict, 0 for the others", labelNames: ["flow", "verdict"], registers });
  const errors = new Counter({ name: "gapwatch_collector_errors_total", help: "Errors reported by collector cycles", labelNames: ["kind", "source"], registers });
  const malformed = new Counter({ name: "gapwatch_malformed_records_total", help: "Records of MM2's and Connect's internal topics that did not decode and were skipped, since start", labelNames: ["cluster", "topic"], registers });
  const audited = new Counter({ name: "gapwatch_audit_records_total", help: "Records compared by the content audit, by outcome (foreign: target records from no source record)", labelNames: ["flow", "result"], registers });

  const countedLoss = new Map<string, bigint>();
  /** The snapshot's malformed counts (per `cluster/topic`, since the collector started) already added to the counter. */
  const countedMalformed = new Map<string, number>();
  let lastCycle: number | null = null;
  /** The latest cycle's topics and partitions with series, and their text once a scrape asked for it. */
  let selection: Pick<SeriesSelection, "topics" | "partitions"> = { topics: [], partitions: [] };
  let selectionText: string | null = null;

  function updateFlows(snapshot: Snapshot): void {
    flowLag.reset();
    heartbeat.reset();
    for (const flow of snapshot.flows) {
      flowLag.set({ flow: flow.id }, Number(flow.totals.lag));
      if (flow.heartbeat.latencyMs !== null) heartbeat.set({ flow: flow.id }, flow.heartbeat.latencyMs / 1000);
    }
  }

  /** Replaces the whole selection, so a topic or partition that no longer qualifies leaves no stale series. */
  function updateTopicsAndPartitions(snapshot: Snapshot, alerts: readonly AlertRecord[], risks: readonly RiskRecord[], options: MetricsOptions): void {
    const selected = selectSeries(snapshot, alerts, risks, options);
    for (const gauge of [flowAge, unknownPartitions, omittedTopics, omittedPartitions]) gauge.reset();
    // Unknown figures get no series (never a 0): the unknown counts say why they are missing.
    for (const f of selected.flows) {
      if (f.lagSeconds !== null) flowAge.set({ flow: f.flow }, f.lagSeconds);
      unknownPartitions.set({ flow: f.flow }, f.unknownPartitions);
      omittedTopics.set({ flow: f.flow }, f.omittedTopics);
      omittedPartitions.set({ flow: f.flow }, f.omittedPartitions);
    }
    selection = selected;
    selectionText = null;
  }

  function updateClusters(snapshot: Snapshot): void {
    clusterUp.reset();
    unknownGroups.reset();
    blindSpots.reset();
    for (const b of countBlindSpots(deriveBlindSpots(snapshot))) blindSpots.set({ cluster: b.cluster, kind: b.kind }, b.resources);
    for (const c of snapshot.clusters) {
      const fresh = c.reachable && !c.stale;
      clusterUp.set({ cluster: c.alias }, fresh ? 1 : 0);
      // A cluster that did not answer carries all its groups over: none of them was read.
      unknownGroups.set({ cluster: c.alias }, fresh ? c.groups.filter((g) => g.error !== null).length : c.groups.length);
    }
  }

  function updateConnect(snapshot: Snapshot): void {
    taskState.reset();
    for (const connect of snapshot.connect) {
      for (const connector of connect.connectors) {
        const units = [{ task: "connector", state: connector.state }, ...connector.tasks.map((t) => ({ task: String(t.id), state: t.state }))];
        for (const unit of units) {
          for (const state of taskStates) taskState.set({ connect_cluster: connect.name, connector: connector.name, task: unit.task, state }, unit.state === state ? 1 : 0);
        }
      }
    }
  }

  function updateAlerts(alerts: readonly AlertRecord[]): void {
    alertCount.reset();
    for (const alert of alerts) alertCount.inc({ type: alert.type, severity: alert.severity, state: alert.state });
    for (const alert of alerts) {
      const count = alert.type === FindingType.DATA_LOSS ? parseCount(alert.evidence.lostCount) : null;
      if (count === null) continue;
      const counted = countedLoss.get(alert.id) ?? (alert.firstSeen < startedAt ? count : 0n);
      if (count > counted) lost.inc({ flow: alert.flow ?? "", topic: alert.topic ?? "", partition: String(alert.partition ?? "") }, Number(count - counted));
      countedLoss.set(alert.id, count > counted ? count : counted);
    }
  }

  function updateRisks(risks: readonly RiskRecord[]): void {
    riskCount.reset();
    for (const r of risks) riskCount.inc({ type: r.type, cluster: r.cluster ?? "" });
  }

  function countCycle(snapshot: Snapshot): void {
    if (snapshot.cycle === lastCycle) return;
    lastCycle = snapshot.cycle;
    cycleSeconds.observe(snapshot.durationMs / 1000);
    for (const c of snapshot.clusters) if (c.error !== null) errors.inc({ kind: "cluster", source: c.alias });
    for (const c of snapshot.connect) if (c.error !== null) errors.inc({ kind: "connect", source: c.name });
    for (const f of snapshot.flows) if (f.errors.length > 0) errors.inc({ kind: "flow", source: f.id }, f.errors.length);
    for (const [key, count] of Object.entries(snapshot.malformedRecords)) {
      const added = count - (countedMalformed.get(key) ?? 0);
      const slash = key.indexOf("/");
      if (added > 0) malformed.inc({ cluster: key.slice(0, slash), topic: key.slice(slash + 1) }, added);
      countedMalformed.set(key, count);
    }
  }

  return {
    registry,
    updateMetrics(snapshot, alerts, risks, options = defaultMetricsOptions) {
      updateFlows(snapshot);
      updateTopicsAndPartitions(snapshot, alerts, risks, options);
      updateConnect(snapshot);
      updateClusters(snapshot);
      updateAlerts(alerts);
      updateRisks(risks);
      countCycle(snapshot);
    },
    updateReadiness(verdicts) {
      failoverReady.reset();
      readiness.reset();
      for (const { flow, verdict } of verdicts) {
        failoverReady.set({ flow }, verdict === "ready" ? 1 : 0);
        for (const v of readinessVerdicts) readiness.set({ flow, verdict: v }, v === verdict ? 1 : 0);
      }
    },
    countAuditResults(flow, counts) {
      for (const [result, n] of Object.entries(counts)) if (n > 0) audited.inc({ flow, result }, n);
    },
    async renderMetrics() {
      const text = await registry.metrics();
      selectionText ??= renderSelectionText(selection);
      return `${text}\n${selectionText}`;
    },
  };
}

function parseCount(value: string | number | boolean | null | undefined): bigint | null {
  return typeof value === "string" && /^\d+$/.test(value) ? BigInt(value) : null;
}

/** The process-wide metrics, kept on globalThis so dev hot reload does not reset the counters. */
const holder = globalThis as typeof globalThis & { gapwatchMetrics?: GapwatchMetrics };

function getDefaultMetrics(): GapwatchMetrics {
  holder.gapwatchMetrics ??= createMetrics();
  return holder.gapwatchMetrics;
}

/** Updates the process-wide metrics after a collector cycle (`options`: readMetricsOptions of the config). */
export function updateMetrics(snapshot: Snapshot, alerts: readonly AlertRecord[], risks: readonly RiskRecord[], options?: MetricsOptions): void {
  getDefaultMetrics().updateMetrics(snapshot, alerts, risks, options);
}

/** Sets the process-wide readiness gauges (GET /api/metrics computes them before rendering). */
export function updateReadinessMetrics(verdicts: readonly FlowVerdict[]): void {
  getDefaultMetrics().updateReadiness(verdicts);
}

/** Adds a flow's content-audit outcomes of one cycle to the process-wide counters (the pipeline calls it). */
export function countAuditMetrics(flow: string, counts: Readonly<Record<string, number>>): void {
  getDefaultMetrics().countAuditResults(flow, counts);
}

/** The process-wide metrics in Prometheus text format (for GET /api/metrics). */
export function renderMetrics(): Promise<string> {
  return getDefaultMetrics().renderMetrics();
}
