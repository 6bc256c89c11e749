import { hashToHex } from "../alert-id";
import { isLossAlert, stoppedGrowingMeaning } from "../loss-alerts";
import { AlertState, type AlertRecord, type AlertTransition } from "../types";
import type { PayloadContext } from "./types";

/** Alertmanager's zero time: what it sends as endsAt for alerts that have not ended. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * The body Alertmanager's webhook_config POSTs (version "4"), so receivers written for Alertmanager
 * take Gapwatch alerts unchanged (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config):
 * `{ version, groupKey, truncatedAlerts, status, receiver, groupLabels, commonLabels,
 * commonAnnotations, externalURL, alerts: [{ status, labels, annotations, startsAt, endsAt,
 * generatorURL, fingerprint }] }`. Labels: alertname (finding type), severity, and flow, cluster,
 * topic, partition, group when set, plus gapwatch_key; fingerprint is a 64-bit hash of the labels.
 */
export function buildAlertmanagerPayload(transitions: readonly AlertTransition[], context: PayloadContext) {
  const alerts = transitions.map((t) => toAlertmanagerAlert(t.alert, context));
  const status = alerts.some((a) => a.status === AlertState.FIRING) ? AlertState.FIRING : AlertState.RESOLVED;
  return {
    version: "4",
    groupKey: `{}:{receiver="${context.receiver}"}`,
    truncatedAlerts: 0,
    status,
    receiver: context.receiver,
    groupLabels: {},
    commonLabels: intersect(alerts.map((a) => a.labels)),
    commonAnnotations: intersect(alerts.map((a) => a.annotations)),
    externalURL: context.externalUrl ?? "",
    alerts,
  };
}

/** Alertmanager labels of an alert: identifying, low-cardinality, strings only. */
export function buildAlertLabels(alert: AlertRecord): Record<string, string> {
  const optional = { flow: alert.flow, cluster: alert.cluster, topic: alert.topic, partition: alert.partition?.toString() ?? null, group: alert.group };
  const present = Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== null);
  return { alertname: alert.type, severity: alert.severity, ...Object.fromEntries(present), gapwatch_key: alert.key };
}

/**
 * Alertmanager annotations of an alert: its summary, and its evidence as `name=value, …`; a loss that
 * resolved also says that it only stopped growing (`resolved_means`).
 */
export function buildAlertAnnotations(alert: AlertRecord): { summary: string; description: string; resolved_means?: string } {
  const evidence = Object.entries(alert.evidence).map(([name, value]) => `${name}=${value}`);
  const annotations = { summary: alert.summary, description: evidence.join(", ") };
  return isLossAlert(alert) && alert.state === AlertState.RESOLVED ? { ...annotations, resolved_means: stoppedGrowingMeaning } : annotations;
}

function toAlertmanagerAlert(alert: AlertRecord, context: PayloadContext) {
  const labels = buildAlertLabels(alert);
  return {
    status: alert.state,
    labels,
    annotations: buildAlertAnnotations(alert),
    startsAt: new Date(alert.firstSeen).toISOString(),
    endsAt: alert.resolvedAt === null ? ZERO_TIME : new Date(alert.resolvedAt).toISOString(),
    generatorURL: context.externalUrl === null ? "" : `${context.externalUrl}/alerts/${alert.id}`,
    fingerprint: hashToHex(
      Object.keys(labels)
        .sort()
        .map((name) => `${name}=${labels[name]}`)
        .join("\u00ff"),
    ),
  };
}

/** The name/value pairs every map has (Alertmanager's commonLabels / commonAnnotations). */
function intersect(maps: Record<string, string>[]): Record<string, string> {
  const [first, ...rest] = maps;
  if (first === undefined) return {};
  return Object.fromEntries(Object.entries(first).filter(([name, value]) => rest.every((m) => m[name] === value)));
}
