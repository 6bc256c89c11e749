/**
 * The answer to "if the source region dies now, is the copy usable?", from every readiness check of rules.ts
 * (`readinessRules`). Judged when a page or the API asks, never per cycle (readiness-rule.ts).
 */
import type { ReadinessCheckId, ReadinessInput, ReadinessOutcome, ReadinessStatus } from "../readiness-rule";
import { readinessRules } from "../rules";
import { estimateFailoverCost, type FailoverCost } from "./failover-cost";

/**
 * `not-ready` when failing over now breaks consumers or loses data beyond what the lag says (a connector down, a
 * topic missing on the target, a loss or reset open); `unknown` when a check could not be made (unknown is not
 * healthy); `degraded` when failing over works but costs more than the objectives allow (lag beyond the RPO, groups
 * not checkpointed or re-reading too much); `ready` otherwise.
 */
export type ReadinessVerdict = "ready" | "degraded" | "not-ready" | "unknown";

/** One check as judged: what was checked, how it stands, and the items behind it. */
export interface JudgedCheck extends ReadinessOutcome {
  id: ReadinessCheckId;
  title: string;
}

/** One flow's readiness: the verdict, every check worst first, and what failing over now costs. */
export interface FlowReadinessJudgement {
  flow: string;
  verdict: ReadinessVerdict;
  /** Every check, worst first. */
  checks: JudgedCheck[];
  cost: FailoverCost;
  rpoSeconds: number;
  evaluatedAt: number;
}

const statusRank: Record<ReadinessStatus, number> = { "not-ready": 3, unknown: 2, degraded: 1, ok: 0 };

/** Runs every readiness check of one flow and gives the verdict: the worst status among them. */
export function assessFlowReadiness(input: ReadinessInput): FlowReadinessJudgement {
  const checks = readinessRules
    .filter((rule) => rule.appliesTo?.(input) ?? true)
    .map((rule): JudgedCheck => {
      const title = typeof rule.title === "string" ? rule.title : rule.title(input);
      return { id: rule.id, title, ...rule.check(input) };
    })
    // Stable: checks of one status keep the registry's order.
    .sort((a, b) => statusRank[b.status] - statusRank[a.status]);
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
