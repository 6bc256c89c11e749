/** How a readiness check states its outcome (readiness-rule.ts), shared by every check. */
import type { ReadinessItem, ReadinessOutcome, ReadinessStatus } from "../readiness-rule";

const shownItems = 8;

/** One check's outcome, with at most a handful of its items. */
export function makeOutcome(
  status: ReadinessStatus,
  message: string,
  items: readonly ReadinessItem[] = [],
): ReadinessOutcome {
  // Only text and ref: callers pass their problems, whose status is already in the outcome's.
  return { status, message, items: items.slice(0, shownItems).map(({ text, ref }) => ({ text, ref })) };
}

/** The worst of several statuses: not-ready, then unknown, then degraded; ok when none is worse. */
export function pickWorstStatus(statuses: readonly ReadinessStatus[]): ReadinessStatus {
  const order: ReadinessStatus[] = ["not-ready", "unknown", "degraded"];
  return order.find((s) => statuses.includes(s)) ?? "ok";
}

/** The first problem's text, with how many more there are. */
export function describeFirstProblem(problems: readonly { text: string }[]): string {
  return problems[0]!.text + (problems.length > 1 ? ` (+${problems.length - 1} more)` : "");
}
