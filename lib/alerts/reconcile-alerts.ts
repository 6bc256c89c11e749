import type { Finding, SeverityName } from "@/lib/detect/types";
import { createAlertId } from "./alert-id";
import { isAcknowledgeable } from "./loss-alerts";
import { AlertState, TransitionType, type AlertRecord, type AlertTransition, type ReconcileOptions } from "./types";

/** One minute of hysteresis; a recurrence within an hour of resolving is the same incident. */
export const defaultReconcileOptions: ReconcileOptions = { resolveAfterMs: 60_000, refireAfterResolveMs: 3_600_000 };

const severityRank: Record<SeverityName, number> = { critical: 3, warning: 2, info: 1 };

/**
 * Turns this cycle's findings into alert state changes. Pure: the caller passes `now` and persists
 * the returned alerts, so a restart neither loses nor re-fires them.
 *
 * LOGIC — per key (one alert per finding key; duplicate findings keep the most severe):
 * - finding, no alert → new firing alert: "fired".
 * - finding, firing alert → lastSeen = now, severity/summary/evidence refreshed, acknowledgement
 *   kept; "updated" only when severity or summary changed (evidence numbers move every cycle).
 * - finding, resolved alert → firing again with the acknowledgement cleared (a new occurrence must
 *   be looked at again): within refireAfterResolveMs of resolving it continues the incident
 *   ("refired", firstSeen kept), later it is a new incident ("fired", firstSeen = now).
 * - no finding, firing alert → resolved only once the finding has been absent for resolveAfterMs
 *   (now − lastSeen ≥ resolveAfterMs): a finding that flaps within that window never resolves, so
 *   it never pages twice. "resolved".
 * - no finding, resolved alert → unchanged (the store decides how long to keep it).
 * A loss alert (DATA_LOSS, UNCLEAN_TRUNCATION) resolves the same way, but "resolved" then only means
 * it stopped growing: it stays in the banner and the open alerts until acknowledged (loss-alerts.ts).
 */
export function reconcileAlerts(
  current: readonly AlertRecord[],
  findings: readonly Finding[],
  now: number,
  options: ReconcileOptions = defaultReconcileOptions,
): { alerts: AlertRecord[]; transitions: AlertTransition[] } {
  const byKey = pickFindingPerKey(findings);
  const transitions: AlertTransition[] = [];
  const alerts = current.map((alert) => {
    const finding = byKey.get(alert.key);
    byKey.delete(alert.key);
    const next = finding === undefined ? resolveIfAbsentLongEnough(alert, now, options) : applyFinding(alert, finding, now, options);
    if (next.transition !== null) transitions.push({ type: next.transition, alert: next.alert });
    return next.alert;
  });
  for (const finding of byKey.values()) {
    const alert = createAlert(finding, now);
    alerts.push(alert);
    transitions.push({ type: TransitionType.FIRED, alert });
  }
  return { alerts, transitions };
}

/**
 * Marks a firing alert, or a loss alert in any state (loss-alerts.ts: it stays open until acknowledged),
 * acknowledged; other alerts are returned unchanged.
 */
export function acknowledgeAlert(alerts: readonly AlertRecord[], id: string, by: string, now: number): AlertRecord[] {
  return alerts.map((a) => (a.id === id && isAcknowledgeable(a) ? { ...a, acknowledged: { by, at: now } } : a));
}

type Step = { alert: AlertRecord; transition: AlertTransition["type"] | null };

function pickFindingPerKey(findings: readonly Finding[]): Map<string, Finding> {
  const byKey = new Map<string, Finding>();
  for (const finding of findings) {
    const seen = byKey.get(finding.key);
    if (seen === undefined || severityRank[finding.severity] > severityRank[seen.severity]) byKey.set(finding.key, finding);
  }
  return byKey;
}

function createAlert(finding: Finding, now: number): AlertRecord {
  return {
    id: createAlertId(finding.key),
    key: finding.key,
    type: finding.type,
    severity: finding.severity,
    state: AlertState.FIRING,
    acknowledged: null,
    ...locateFinding(finding),
    summary: finding.summary,
    evidence: finding.evidence,
    firstSeen: now,
    lastSeen: now,
    resolvedAt: null,
  };
}

/** Where a finding is: flow, cluster, topic, partition, group (null when it does not say). */
export function locateFinding(finding: Finding): Pick<AlertRecord, "flow" | "cluster" | "topic" | "partition" | "group"> {
  return {
    flow: finding.flow ?? null,
    cluster: finding.cluster ?? null,
    topic: finding.topic ?? null,
    partition: finding.partition ?? null,
    group: finding.group ?? null,
  };
}

function applyFinding(alert: AlertRecord, finding: Finding, now: number, options: ReconcileOptions): Step {
  // Where it is follows the finding too: a flow-level alert (TASK_STALLED|<flow>) that comes back
  // for other partitions must not keep naming the first ones (60-minute soak, seed 2028).
  const refreshed = { ...alert, ...locateFinding(finding), severity: finding.severity, summary: finding.summary, evidence: finding.evidence, lastSeen: now };
  if (alert.state === AlertState.FIRING) {
    const changed = alert.severity !== finding.severity || alert.summary !== finding.summary;
    return { alert: refreshed, transition: changed ? TransitionType.UPDATED : null };
  }
  const sameIncident = alert.resolvedAt !== null && now - alert.resolvedAt < options.refireAfterResolveMs;
  const reopened = { ...refreshed, state: AlertState.FIRING, acknowledged: null, resolvedAt: null };
  return sameIncident
    ? { alert: reopened, transition: TransitionType.REFIRED }
    : { alert: { ...reopened, firstSeen: now }, transition: TransitionType.FIRED };
}

function resolveIfAbsentLongEnough(alert: AlertRecord, now: number, options: ReconcileOptions): Step {
  if (alert.state !== AlertState.FIRING || now - alert.lastSeen < options.resolveAfterMs) return { alert, transition: null };
  return { alert: { ...alert, state: AlertState.RESOLVED, resolvedAt: now }, transition: TransitionType.RESOLVED };
}
