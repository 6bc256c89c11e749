import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readFlowPartition, readOldestUnreplicatedTimestamp } from "@/lib/collector/flow-rows";
import type { Flow } from "@/lib/collector/types";
import { countOf, formatCount, formatDuration, isFlowFresh, namePartition, type DetectorContext } from "./snapshot-views";
import type { FlowPartition } from "@/lib/collector/types";
import { FindingType, Severity, type Finding } from "./types";

/**
 * REPLICATION_LAG — replication is behind, in records or in time.
 *
 * LOGIC — per flow whose clusters are fresh (stale data is not judged), over its partitions that are
 * not unknown (a failed read: last cycle's finding is carried, unknown-data.ts), up to three findings:
 * - `REPLICATION_LAG|<flow>|records`: some partition's lag ≥ lagRecords, or the flow's total lag
 *   ≥ flowLagRecords. Lag = sourceLogEnd − mm2Position; mm2Position is published every
 *   offset.flush.interval.ms, so lag reads up to that much high. Names the worst partition.
 * - `REPLICATION_LAG|<flow>|heartbeat`: heartbeat latency (now − newest `<source>.heartbeats`
 *   timestamp on the target) ≥ lagSeconds: end-to-end delay, including a stopped pipeline.
 * - `REPLICATION_LAG|<flow>|oldest-record`: now − timestamp of the oldest unreplicated record ≥
 *   lagSeconds, over partitions with lag > 0 — only when the collector provides
 *   `oldestUnreplicatedTimestamp`.
 * Severity warning: lag alone loses nothing (RETENTION_RISK says when it would).
 */
export function detectReplicationLag(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const flow of ctx.current.flows) {
    if (!isFlowFresh(ctx.current, flow)) continue;
    const records = checkRecordLag(ctx, flow);
    const heartbeat = checkHeartbeatLatency(ctx, flow);
    const oldest = checkOldestRecordAge(ctx, flow);
    for (const finding of [records, heartbeat, oldest]) if (finding !== null) findings.push(finding);
  }
  return findings;
}

function createLagFinding(ctx: DetectorContext, flow: Flow, aspect: string, summary: string, evidence: Finding["evidence"]): Finding {
  return {
    key: `${FindingType.REPLICATION_LAG}|${flow.id}|${aspect}`,
    type: FindingType.REPLICATION_LAG,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.source,
    summary,
    evidence,
    observedAt: ctx.now,
  };
}

function checkRecordLag(ctx: DetectorContext, flow: Flow): Finding | null {
  const perPartition = BigInt(ctx.thresholds.lagRecords);
  const perFlow = BigInt(ctx.thresholds.flowLagRecords);
  const sum = sumLagFromColumns(flow, ctx.thresholds.lagRecords) ?? sumLagFromPartitions(flow, perPartition);
  const { total, over, worst } = sum;
  if (over === 0 && total < perFlow) return null;
  const worstName = worst === null ? null : namePartition(worst.topic, worst.partition);
  const worstText = worst === null ? "" : ` (worst: ${worstName} with ${formatCount(worst.lag)}; ${countOf(over, "partition")} over ${formatCount(perPartition)})`;
  return createLagFinding(ctx, flow, "records", `${flow.id} is ${countOf(total, "record")} behind${worstText}`, {
    totalLag: total.toString(),
    worstPartition: worstName,
    worstPartitionLag: worst?.lag.toString() ?? null,
    partitionsOverThreshold: over,
    lagRecordsThreshold: ctx.thresholds.lagRecords,
    flowLagRecordsThreshold: ctx.thresholds.flowLagRecords,
    unknownPositions: flow.totals.unknownPositions,
  });
}

/** The flow's known lag: its total, how many partitions are at or over the threshold, and the first largest. */
interface LagSum {
  total: bigint;
  over: number;
  worst: (FlowPartition & { lag: bigint }) | null;
}

/**
 * LagSum from the flow's lag column, in numbers (exact: each lag is below 2^53, checked where the column is filled);
 * null when the total would pass 2^53 or a partition is listed twice (its column holds one value for both).
 */
function sumLagFromColumns(flow: Flow, perPartition: number): LagSum | null {
  const { slotAt, lag, knownPositionOf, duplicates } = readFlowColumns(flow);
  if (duplicates) return null;
  let total = 0;
  let over = 0;
  let worst = -1;
  let worstLag = 0;
  for (let i = 0; i < slotAt.length; i++) {
    const slot = slotAt[i]!;
    const value = lag[slot]!;
    // NaN (unknown lag) and partitions whose data is unknown are skipped.
    if (Number.isNaN(value) || knownPositionOf[slot] !== i) continue;
    total += value;
    if (total > Number.MAX_SAFE_INTEGER) return null;
    if (value >= perPartition) over++;
    if (worst < 0 || value > worstLag) {
      worst = i;
      worstLag = value;
    }
  }
  return { total: BigInt(total), over, worst: worst < 0 ? null : (readFlowPartition(flow, worst) as FlowPartition & { lag: bigint }) };
}

/** LagSum from the partitions' bigints. */
function sumLagFromPartitions(flow: Flow, perPartition: bigint): LagSum {
  let total = 0n;
  let over = 0;
  let worst: (FlowPartition & { lag: bigint }) | null = null;
  for (const p of flow.partitions) {
    if (p.lag === null || p.unknown !== null) continue;
    if (p.lag !== 0n) total += p.lag;
    if (p.lag >= perPartition) over++;
    if (worst === null || p.lag > worst.lag) worst = p as FlowPartition & { lag: bigint };
  }
  return { total, over, worst };
}

function checkHeartbeatLatency(ctx: DetectorContext, flow: Flow): Finding | null {
  const { latencyMs, latestTimestamp } = flow.heartbeat;
  const limitMs = ctx.thresholds.lagSeconds * 1000;
  if (latencyMs === null || latencyMs < limitMs) return null;
  return createLagFinding(
    ctx,
    flow,
    "heartbeat",
    `${flow.id}: MM2 heartbeats reach ${flow.target} ${formatDuration(latencyMs)} late (threshold ${formatDuration(limitMs)})`,
    { latencyMs, latestHeartbeat: latestTimestamp, thresholdMs: limitMs },
  );
}

function checkOldestRecordAge(ctx: DetectorContext, flow: Flow): Finding | null {
  const limitMs = ctx.thresholds.lagSeconds * 1000;
  let oldest: { partition: FlowPartition; timestamp: number } | null = null;
  // The timestamp first: without one (every partition of a flow buildFlow made) no partition object is read.
  for (let i = 0; i < countFlowPartitions(flow); i++) {
    const timestamp = readOldestUnreplicatedTimestamp(flow, i);
    if (timestamp === undefined || timestamp === null) continue;
    const partition = flow.partitions[i]!;
    if (partition.unknown !== null || partition.lag === null || partition.lag <= 0n) continue;
    if (oldest === null || timestamp < oldest.timestamp) oldest = { partition, timestamp };
  }
  if (oldest === null || ctx.now - oldest.timestamp < limitMs) return null;
  const { partition, timestamp } = oldest;
  const name = namePartition(partition.topic, partition.partition);
  return createLagFinding(
    ctx,
    flow,
    "oldest-record",
    `${flow.id}: the oldest record not yet copied (${name}, offset ${partition.mm2Position}) is ${formatDuration(ctx.now - timestamp)} old`,
    {
      partition: name,
      offset: partition.mm2Position?.toString() ?? null,
      recordTimestamp: timestamp,
      ageMs: ctx.now - timestamp,
      thresholdMs: limitMs,
    },
  );
}
