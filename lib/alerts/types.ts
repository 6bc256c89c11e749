/**
 * Alert lifecycle types. An AlertRecord is what the store persists per finding key; transitions
 * are what notifiers and the event log consume.
 */
import type { AlertSubject, Evidence, FindingTypeName, SeverityName } from "@/lib/detect/types";

/** Whether an alert is currently active. */
export const AlertState = {
  /** The finding is present (or was, less than resolveAfterMs ago). */
  FIRING: "firing",
  /** The finding has been absent for at least resolveAfterMs. */
  RESOLVED: "resolved",
} as const;
export type AlertStateName = (typeof AlertState)[keyof typeof AlertState];

/** What happened to an alert in one reconciliation. */
export const TransitionType = {
  /** A new alert (or a recurrence after refireAfterResolveMs: a new incident). */
  FIRED: "fired",
  /** The finding was absent for resolveAfterMs. */
  RESOLVED: "resolved",
  /** A resolved alert came back within refireAfterResolveMs: same incident, acknowledgement cleared. */
  REFIRED: "refired",
  /** A firing alert changed severity or summary. */
  UPDATED: "updated",
} as const;
export type TransitionTypeName = (typeof TransitionType)[keyof typeof TransitionType];

/** Who acknowledged an alert, and when (epoch ms). */
export interface Acknowledgement {
  by: string;
  at: number;
}

/** One alert per finding key. */
export interface AlertRecord extends AlertSubject {
  /** Stable id derived from the key (16 hex digits). */
  id: string;
  key: string;
  type: FindingTypeName;
  severity: SeverityName;
  state: AlertStateName;
  acknowledged: Acknowledgement | null;
  summary: string;
  evidence: Evidence;
  /** When this incident started (epoch ms). */
  firstSeen: number;
  /** When its finding was last present. */
  lastSeen: number;
  resolvedAt: number | null;
}

/**
 * A standing risk (lib/detect riskFindingTypes): present while its finding is, with the time it was
 * first seen. Never an alert, never notified.
 */
export type RiskRecord = Pick<
  AlertRecord,
  "key" | "type" | "severity" | "flow" | "cluster" | "topic" | "partition" | "group" | "summary" | "evidence" | "firstSeen" | "lastSeen"
>;

/** One change of one alert. */
export interface AlertTransition {
  type: TransitionTypeName;
  alert: AlertRecord;
}

/** Timing rules of reconcileAlerts. */
export interface ReconcileOptions {
  /** Hysteresis: a finding must be absent this long before its alert resolves. */
  resolveAfterMs: number;
  /** A recurrence within this time after resolving continues the same incident ("refired"). */
  refireAfterResolveMs: number;
}
