import { readFlowPartition, readOldestUnreplicatedTimestamp } from "@/lib/collector/flow-rows";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import {
  countOf,
  findTopic,
  formatDuration,
  formatUtcTime,
  forEachFreshPartition,
  isDeleting,
  namePartition,
  readPartitionView,
  type DetectorContext,
  type FlowPartitionView,
} from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * RETENTION_RISK — forecast: the oldest unreplicated record will be deleted by time retention
 * before MM2 copies it (which would become DATA_LOSS).
 *
 * LOGIC — per fresh flow partition with lag > 0, a known `oldestUnreplicatedTimestamp` (the
 * record at mm2Position) and source topic configs with a finite
 * retention.ms and a cleanup.policy containing `delete`:
 * - deletable at ≈ timestamp + retention.ms. This is a LOWER bound: Kafka deletes whole segments,
 *   once the segment's newest timestamp is older than retention.ms, checked every
 *   log.retention.check.interval.ms — so the record lives at least until then, possibly longer;
 * - deletable at − now ≤ retentionHorizonMs → finding `RETENTION_RISK|<flow>|<topic>|<partition>`;
 *   severity critical when the time has already passed (it may go any moment), else warning.
 * Size retention (retention.bytes) is not forecast: the snapshot has no partition sizes, so the
 * detector cannot tell how close a partition is to its byte limit.
 */
export function detectRetentionRisk(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  forEachFreshPartition(ctx.current, (flow, columns, at, slot) => {
    // Only records waiting can be deleted unreplicated (lag > 0; NaN, unknown, compares false): numbers first.
    if (!(columns.lag[slot]! > 0) && !columns.duplicates) return;
    // Then the timestamp (none in a flow buildFlow made: no partition object is made for it).
    const timestamp = readOldestUnreplicatedTimestamp(flow, at);
    if (timestamp === undefined || timestamp === null) return;
    const forecast = forecastDeletion(ctx, flow, readFlowPartition(flow, at));
    if (forecast !== null && forecast.deletableAt - ctx.now <= ctx.thresholds.retentionHorizonMs) {
      findings.push(createRiskFinding(ctx, readPartitionView(flow, columns, at), forecast));
    }
  });
  return findings;
}

interface DeletionForecast {
  timestamp: number;
  retentionMs: bigint;
  deletableAt: number;
}

function forecastDeletion(ctx: DetectorContext, flow: Flow, partition: FlowPartition): DeletionForecast | null {
  const timestamp = partition.oldestUnreplicatedTimestamp;
  if (timestamp === undefined || timestamp === null || partition.lag === null || partition.lag <= 0n) return null;
  const configs = findTopic(ctx.current, flow.source, partition.topic)?.configs;
  if (configs === null || configs === undefined || configs.retentionMs === null) return null;
  if (!isDeleting(configs)) return null;
  return { timestamp, retentionMs: configs.retentionMs, deletableAt: timestamp + Number(configs.retentionMs) };
}

function createRiskFinding(ctx: DetectorContext, view: FlowPartitionView, forecast: DeletionForecast): Finding {
  const { partition, flow } = view;
  const name = namePartition(partition.topic, partition.partition);
  const inMs = forecast.deletableAt - ctx.now;
  const when =
    inMs > 0
      ? `will be deleted by retention in ${formatDuration(inMs)}, at ${formatUtcTime(forecast.deletableAt)}`
      : `may be deleted by retention any moment (eligible since ${formatUtcTime(forecast.deletableAt)})`;
  return {
    key: `${FindingType.RETENTION_RISK}|${flow.id}|${partition.topic}|${partition.partition}`,
    type: FindingType.RETENTION_RISK,
    severity: inMs > 0 ? Severity.WARNING : Severity.CRITICAL,
    flow: flow.id,
    cluster: flow.source,
    topic: partition.topic,
    partition: partition.partition,
    summary: `${name}: oldest unreplicated record (offset ${partition.mm2Position}) ${when}; ${countOf(partition.lag ?? 0n, "record")} waiting`,
    evidence: {
      oldestUnreplicatedOffset: partition.mm2Position?.toString() ?? null,
      oldestUnreplicatedTimestamp: forecast.timestamp,
      retentionMs: forecast.retentionMs.toString(),
      deletableAt: forecast.deletableAt,
      deletableInMs: inMs,
      lag: partition.lag?.toString() ?? null,
      basis: "time",
    },
    observedAt: ctx.now,
  };
}
