import type { ReadinessInput } from "../readiness-rule";
import { FindingType } from "../types";

/** What failing over right now costs. */
export interface FailoverCost {
  /** Source records not yet on the target (data records; unknown partitions not counted). */
  unreplicatedRecords: bigint;
  /** Age of the oldest of them (ms); null when nothing waits or its timestamp is unknown. */
  oldestUnreplicatedAgeMs: number | null;
  /** Records already lost: deleted at the source before MM2 copied them (open DATA_LOSS alerts of the flow). */
  lostRecords: bigint;
  /** Per checkpointed group: records it re-reads with MM2's offsets, and partitions where it skips records. */
  groups: { group: string; replayRecords: bigint; skippingPartitions: number }[];
}

/** The flow's failover cost: its lag, its firing losses' lost records, each group's re-reads and skips. */
export function estimateFailoverCost({ snapshot, flow, translation, alerts }: ReadinessInput): FailoverCost {
  const losses = alerts.filter((a) => a.firing && a.flow === flow.id && a.type === FindingType.DATA_LOSS);
  const lostRecords = losses.reduce((sum, a) => sum + readLostCount(a.evidence.lostCount), 0n);
  const known = flow.partitions.filter((p) => p.unknown === null);
  const stamps = known.map((p) => p.oldestUnreplicatedTimestamp).filter((t): t is number => t !== null);
  return {
    unreplicatedRecords: known.reduce((sum, p) => sum + (p.lag ?? 0n), 0n),
    oldestUnreplicatedAgeMs: stamps.length === 0 ? null : Math.max(0, snapshot.takenAt - Math.min(...stamps)),
    lostRecords,
    groups: (translation?.groups ?? []).map((g) => ({
      group: g.group,
      replayRecords: g.totals.failoverReplayRecords,
      skippingPartitions: g.totals.skippingPartitions,
    })),
  };
}

/** DATA_LOSS evidence `lostCount` (a decimal string); anything else counts nothing. */
function readLostCount(value: string | number | boolean | null | undefined): bigint {
  return typeof value === "string" && /^\d+$/.test(value) ? BigInt(value) : 0n;
}
