import type { ReadinessAlert, ReadinessRule } from "../readiness-rule";
import { FindingType, type FindingTypeName } from "../types";
import { makeOutcome } from "./outcome";

/** Firing alerts of the flow that make the copy unusable now, and those that make it cost more. */
const blockingFlowAlerts: FindingTypeName[] = [
  FindingType.DATA_LOSS,
  FindingType.TOPIC_RESET,
  FindingType.TASK_FAILED,
  FindingType.TASK_STALLED,
  FindingType.TASK_NOT_RUNNING,
  FindingType.MM2_CONNECTOR_MISSING,
  FindingType.TARGET_TRUNCATED,
];
/** Cluster alerts that block when they concern the target: nothing sound to fail over to. */
const blockingTargetAlerts: FindingTypeName[] = [FindingType.OFFLINE, FindingType.UNCLEAN_TRUNCATION];
const costlyFlowAlerts: FindingTypeName[] = [
  FindingType.MM2_POSITION_MOVED,
  FindingType.ABORTED_RECORDS_COPIED,
  FindingType.RETENTION_RISK,
];

/**
 * No open loss (firing, or stopped growing and not acknowledged), reset, truncation, failed, stalled, not running
 * or missing connector or task on the flow, and no offline partition or unclean truncation on the target.
 */
export const alertsCheck: ReadinessRule = {
  id: "alerts",
  title: "Open alerts",
  check: ({ flow, alerts }) => {
    // A loss that stopped growing stays open until acknowledged (lib/alerts/loss-alerts.ts): its records are gone.
    const open = alerts.filter((a) => a.firing || a.awaitingAttention);
    const ofFlow = open.filter((a) => a.flow === flow.id);
    const blocking = [
      ...ofFlow.filter((a) => blockingFlowAlerts.includes(a.type)),
      ...open.filter((a) => a.flow === null && a.cluster === flow.target && blockingTargetAlerts.includes(a.type)),
    ];
    const costly = ofFlow.filter((a) => costlyFlowAlerts.includes(a.type));
    const items = [...blocking, ...costly].map((alert) => ({
      text: `${alert.type}: ${alert.summary}`,
      ref: { kind: "alert" as const, alert },
    }));
    if (blocking.length > 0) return makeOutcome("not-ready", describeOpen(blocking), items);
    if (costly.length > 0) return makeOutcome("degraded", describeOpen(costly), items);
    return makeOutcome("ok", "no open data loss, reset, truncation, failed or stalled task");
  },
};

function describeOpen(alerts: readonly ReadinessAlert[]): string {
  return `${alerts.length} open: ${alerts[0]!.type} — ${alerts[0]!.summary}`;
}
