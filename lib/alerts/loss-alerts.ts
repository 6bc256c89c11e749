import { FindingType, type FindingTypeName } from "@/lib/detect/types";
import { AlertState, type AlertRecord, type AlertTransition } from "./types";

/**
 * Loss events: the records are gone for good, so the alert must be seen by someone. Their alerts
 * stay in the banner and the alert list until acknowledged; "resolved" only means the loss stopped growing.
 */
export const lossAlertTypes: ReadonlySet<FindingTypeName> = new Set([FindingType.DATA_LOSS, FindingType.UNCLEAN_TRUNCATION]);

/** What a resolved loss alert's state means, in the words pages and notifications use. */
export const stoppedGrowingMeaning = "stopped growing: no new loss seen; the lost records stay lost until restored by hand";

/** Whether an alert is a loss event (DATA_LOSS, UNCLEAN_TRUNCATION). */
export function isLossAlert(alert: Pick<AlertRecord, "type">): boolean {
  return lossAlertTypes.has(alert.type);
}

/** Whether an alert may be acknowledged: a firing alert, or a loss alert in any state. */
export function isAcknowledgeable(alert: AlertRecord): boolean {
  return alert.acknowledged === null && (alert.state === AlertState.FIRING || isLossAlert(alert));
}

/**
 * Whether an alert belongs in the banner and the open alerts: firing and not acknowledged, or a loss
 * that stopped growing and nobody acknowledged yet.
 */
export function isAwaitingAttention(alert: AlertRecord): boolean {
  return alert.acknowledged === null && (alert.state === AlertState.FIRING || isLossAlert(alert));
}

/** The state as shown: "firing", "resolved", or for a loss alert that resolved, "stopped growing". */
export function describeAlertState(alert: Pick<AlertRecord, "type" | "state">): string {
  if (alert.state === AlertState.RESOLVED && isLossAlert(alert)) return "stopped growing";
  return alert.state;
}

/** A timeline line of a transition: a loss that resolved reads "stopped growing" there too, never "resolved". */
export function describeTransitionLine(t: AlertTransition): string {
  const what = t.type === "resolved" ? describeAlertState(t.alert) : t.type;
  return `${t.alert.type} ${what}: ${t.alert.summary}`;
}
