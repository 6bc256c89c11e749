import { AlertState, type AlertRecord, type AlertTransition } from "../types";
import { buildAlertAnnotations, buildAlertLabels } from "./alertmanager";
import type { PayloadContext } from "./types";

/**
 * The body of Alertmanager's own API, `POST /api/v2/alerts` (what Prometheus sends): an array of
 * postable alerts `{ labels, annotations, startsAt, endsAt, generatorURL }`, labels and annotations
 * as in the webhook format (buildAlertLabels). Alertmanager keeps an alert active until its endsAt:
 * a resolved alert carries its resolvedAt; a firing one `context.firingEndsAt`, which the notifier
 * pushes forward by re-sending firing alerts (Prometheus does the same, with endsAt 4 resend
 * intervals ahead: an alert whose sender died ends instead of firing forever).
 */
export function buildAlertmanagerApiPayload(transitions: readonly AlertTransition[], context: PayloadContext) {
  return listPostableAlerts(transitions.map((t) => t.alert), context);
}

/** Postable alerts for alert records (firing ones are re-sent this way every resend interval). */
export function listPostableAlerts(alerts: readonly AlertRecord[], context: PayloadContext) {
  return alerts.map((alert) => ({
    labels: buildAlertLabels(alert),
    annotations: buildAlertAnnotations(alert),
    startsAt: new Date(alert.firstSeen).toISOString(),
    endsAt: new Date(alert.state === AlertState.RESOLVED && alert.resolvedAt !== null ? alert.resolvedAt : context.firingEndsAt).toISOString(),
    generatorURL: context.externalUrl === null ? "" : `${context.externalUrl}/alerts/${alert.id}`,
  }));
}
