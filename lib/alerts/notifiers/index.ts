/**
 * Alert notifiers: payload builders per format and the background delivery queue.
 */
export { buildAlertLabels, buildAlertmanagerPayload } from "./alertmanager";
export { buildAlertmanagerApiPayload } from "./alertmanager-api";
export { createNotifier, type Notifier, type NotifierOptions } from "./delivery-queue";
export { buildSlackPayload } from "./slack";
export { NotifierKind, type NotifierKindName, type NotifierTarget, type PayloadBuilder, type PayloadContext } from "./types";
export { buildWebhookPayload } from "./webhook";
