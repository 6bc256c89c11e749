import { FindingType } from "@/lib/detect/types";
import {
  checkAlerts,
  checkConnectors,
  checkContent,
  checkGroups,
  checkHeartbeats,
  checkLag,
  checkTopicConfigs,
  checkTopics,
  type ReadinessCheck,
  type ReadinessInput,
  type ReadinessStatus,
} from "./readiness-checks";

export type { ReadinessCheck, ReadinessInput, ReadinessStatus } from "./readiness-checks";

/**
 * The answer to "if the source region dies now, is the copy usable?": `not-ready` when failing
 * over now breaks consumers or loses data beyond what the lag says (a connector down, a topic
 * missing on the target, a loss or reset open); `unknown` when a check could not be made (unknown
 * is not healthy); `degraded` when failing over works but costs more than the objectives allow
 * (lag beyond the RPO, groups not checkpointed or re-reading too much); `ready` otherwise.
 */
export type ReadinessVerdict = "ready" | "degraded" | "not-ready" | "unknown";

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

export interface FlowReadiness {
  flow: string;
  verdict: ReadinessVerdict;
  /** Every check, worst first. */
  checks: ReadinessCheck[];
  cost: FailoverCost;
  rpoSeconds: number;
  evaluatedAt: number;
}

const statusRank: Record<ReadinessStatus, number> = { "not-ready": 3, unknown: 2, degraded: 1, ok: 0 };

/** Runs every readiness check of one flow and gives the verdict: the worst status among them. */
export function assessFlowReadiness(input: ReadinessInput): FlowReadiness {
  const checks = [
    checkConnectors(input),
    checkTopics(input),
    checkTopicConfigs(input),
    checkLag(input),
    checkAlerts(input),
    checkGroups(input),
    checkHeartbeats(input),
    ...(input.audit === undefined ? [] : [checkContent(input)]),
  ].sort((a, b) => statusRank[b.status] - statusRank[a.status]);
  const worst = checks[0]?.status ?? "ok";
  return {
    flow: input.flow.id,
    verdict: worst === "ok" ? "ready" : worst,
    checks,
    cost: estimateFailoverCost(input),
    rpoSeconds: input.rpoSeconds,
    evaluatedAt: input.snapshot.takenAt,
  };
}

function estimateFailoverCost({ snapshot, flow, translation, alerts }: ReadinessInput): FailoverCost {
  const losses = alerts.filter((a) => a.state === "firing" && a.flow === flow.id && a.type === FindingType.DATA_LOSS);
  const lostRecords = losses.reduce((sum, a) => sum + (typeof a.evidence.lostCount === "string" && /^\d+$/.test(a.evidence.lostCount) ? BigInt(a.evidence.lostCount) : 0n), 0n);
  const known = flow.partitions.filter((p) => p.unknown === null);
  const stamps = known.map((p) => p.oldestUnreplicatedTimestamp).filter((t): t is number => t !== null);
  return {
    unreplicatedRecords: known.reduce((sum, p) => sum + (p.lag ?? 0n), 0n),
    oldestUnreplicatedAgeMs: stamps.length === 0 ? null : Math.max(0, snapshot.takenAt - Math.min(...stamps)),
    lostRecords,
    groups: (translation?.groups ?? []).map((g) => ({ group: g.group, replayRecords: g.totals.failoverReplayRecords, skippingPartitions: g.totals.skippingPartitions })),
  };
}
