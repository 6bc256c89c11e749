/**
 * Failover readiness as pages and the API show it: the engine judges (lib/detect/readiness, its checks registered in
 * lib/detect/rules.ts); this gathers what it reads from a cycle's read model and turns its items into links.
 */
import { isAwaitingAttention } from "@/lib/alerts/loss-alerts";
import { AlertState, type AlertRecord } from "@/lib/alerts/types";
import type { GapwatchConfig } from "@/lib/config";
import { assessFlowReadiness, type FlowReadinessJudgement, type JudgedCheck } from "@/lib/detect/readiness/verdict";
import type { ReadinessAlert, ReadinessRef } from "@/lib/detect/readiness-rule";
import type { Flow } from "@/lib/collector/types";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { linkAlertEvidence } from "./alert-links";
import { flowPath } from "./flow-page";

export type { FailoverCost } from "@/lib/detect/readiness/failover-cost";
export type { ReadinessVerdict } from "@/lib/detect/readiness/verdict";
export type { ReadinessStatus } from "@/lib/detect/readiness-rule";

/** One readiness reason as shown: what was checked, how it stands, and links to its evidence. */
export interface ReadinessCheck extends Omit<JudgedCheck, "items"> {
  /** The items behind the status (a topic, a connector, a group), at most a handful. */
  items: { text: string; href: string | null }[];
}

/** One flow's readiness as shown (the engine's judgement, its items linked). */
export interface FlowReadiness extends Omit<FlowReadinessJudgement, "checks"> {
  /** Every check, worst first. */
  checks: ReadinessCheck[];
}

/**
 * The readiness of one flow of a cycle, as of the cycle's snapshot (ages are measured at `takenAt`), judged with
 * `config`'s thresholds and the flow's RPO (`flows."<id>".rpoSeconds`, default thresholds.lagSeconds).
 */
export function judgeFlowReadiness(model: ReadModel, flow: Flow, config: GapwatchConfig): FlowReadiness {
  const judged = assessFlowReadiness({
    snapshot: model.snapshot,
    flow,
    translation: model.translations.get(flow.id) ?? null,
    alerts: listReadinessAlerts(model.alerts),
    thresholds: config.thresholds,
    rpoSeconds: config.flows[flow.id]?.rpoSeconds ?? config.thresholds.lagSeconds,
    now: model.snapshot.takenAt,
    audit: model.audit.get(flow.id) ?? null,
  });
  return showFlowReadiness(judged);
}

/** The engine's judgement with its items' references as links. */
export function showFlowReadiness(judged: FlowReadinessJudgement): FlowReadiness {
  const checks = judged.checks.map((check) => ({
    ...check,
    items: check.items.map(({ text, ref }) => ({ text, href: linkReadinessRef(judged.flow, ref) })),
  }));
  return { ...judged, checks };
}

/** Per alert list (one per read model): every flow of the cycle reads the same list. */
const readinessAlertsOf = new WeakMap<readonly AlertRecord[], readonly ReadinessAlert[]>();

/** The alerts as the engine's readiness checks read them: the lifecycle (acknowledgement) applied here. */
export function listReadinessAlerts(alerts: readonly AlertRecord[]): readonly ReadinessAlert[] {
  const known = readinessAlertsOf.get(alerts);
  if (known) return known;
  const facts = alerts.map((a): ReadinessAlert => ({
    id: a.id,
    type: a.type,
    flow: a.flow,
    cluster: a.cluster,
    topic: a.topic,
    partition: a.partition,
    group: a.group,
    summary: a.summary,
    evidence: a.evidence,
    firing: a.state === AlertState.FIRING,
    awaitingAttention: isAwaitingAttention(a),
  }));
  readinessAlertsOf.set(alerts, facts);
  return facts;
}

/** Where a check's item is shown, on the judged flow's pages. */
function linkReadinessRef(flowId: string, ref: ReadinessRef | null): string | null {
  if (ref === null) return null;
  switch (ref.kind) {
    case "flow":
      return flowPath(flowId);
    case "coverage":
      return `${flowPath(flowId)}#coverage`;
    case "topic":
      return ref.partition === undefined
        ? flowPath(flowId, "topics", ref.topic)
        : flowPath(flowId, "topics", ref.topic, ref.partition);
    case "group":
      return flowPath(flowId, "groups", ref.group);
    case "alert":
      return linkAlertEvidence(ref.alert);
    case "connect":
      return "/connect";
  }
}
