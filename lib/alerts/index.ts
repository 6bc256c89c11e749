/**
 * lib/alerts — alert lifecycle (pure reconcileAlerts), notifiers with a background delivery
 * queue, and Prometheus metrics.
 */
export { acknowledgeAlert, defaultReconcileOptions, reconcileAlerts } from "./reconcile-alerts";
export { createAlertId } from "./alert-id";
export { describeAlertState, isAcknowledgeable, isAwaitingAttention, isLossAlert, lossAlertTypes, stoppedGrowingMeaning } from "./loss-alerts";
export { createMetrics, renderMetrics, updateMetrics, type GapwatchMetrics } from "./metrics";
export * from "./notifiers";
export * from "./types";
export { createAlertService, type AlertCycleResult, type AlertService } from "./alert-service";
