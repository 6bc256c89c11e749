import type { ReadModel } from "@/lib/pipeline/read-model";
import { formatAge } from "@/lib/format";
import type { FlowHealth } from "./flow-health";
import { readFreshForMs } from "./probes";
import type { FlowReadiness } from "./readiness";

/** How old the served data is when a page or the API answers: older than `maxAgeMs` is stale. */
export interface DataAge {
  cycle: number;
  ageMs: number;
  /** `readyWithinIntervals` poll intervals, as readiness judges freshness (probes.ts). */
  maxAgeMs: number;
  stale: boolean;
}

/** The age of a served model's data at `now` (from when its cycle finished, as readiness measures it). */
export function readDataAge(model: ReadModel, now: number): DataAge {
  const maxAgeMs = readFreshForMs();
  const ageMs = Math.max(0, now - model.builtAt);
  return { cycle: model.snapshot.cycle, ageMs, maxAgeMs, stale: ageMs > maxAgeMs };
}

/**
 * A flow's health pill on stale data: not healthy, not anything else now (unknown is not healthy); the reason says
 * what it was when the data was fresh.
 */
export function ageFlowHealth(health: FlowHealth, age: DataAge): FlowHealth {
  if (!age.stale) return health;
  const reason = `as of cycle ${age.cycle}, ${formatAge(age.ageMs)} ago: ${health.label}`;
  return { tone: "warn", label: "Stale data", reason };
}

/**
 * A failover verdict on stale data is unknown: nobody should fail over on what a stuck collector last saw. The
 * freshness check comes first and says what the verdict was then; the other checks stay as they were judged.
 */
export function ageFlowReadiness(readiness: FlowReadiness, age: DataAge): FlowReadiness {
  if (!age.stale) return readiness;
  const freshness = {
    id: "freshness" as const,
    title: "Data is current",
    status: "unknown" as const,
    message:
      `The newest data is cycle ${age.cycle}'s, ${formatAge(age.ageMs)} old ` +
      `(fresh data is at most ${formatAge(age.maxAgeMs)} old): the collector is stuck or stopped. ` +
      `As of that cycle the verdict was "${readiness.verdict}".`,
    items: [],
  };
  return { ...readiness, verdict: "unknown", checks: [freshness, ...readiness.checks] };
}
