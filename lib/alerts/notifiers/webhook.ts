import { describeAlertState, isLossAlert, stoppedGrowingMeaning } from "../loss-alerts";
import type { AlertTransition } from "../types";
import type { PayloadContext } from "./types";

/**
 * Gapwatch's generic JSON webhook body: every transition with its full alert record, the state as shown
 * (`shownState`: "stopped growing" for a resolved loss) and, for a loss, what that state means.
 */
export function buildWebhookPayload(transitions: readonly AlertTransition[], context: PayloadContext) {
  return {
    version: "1",
    source: "gapwatch",
    sentAt: new Date(context.sentAt).toISOString(),
    externalUrl: context.externalUrl,
    transitions: transitions.map((t) => ({
      type: t.type,
      alert: t.alert,
      shownState: describeAlertState(t.alert),
      ...(isLossAlert(t.alert) && t.alert.state === "resolved" ? { meaning: stoppedGrowingMeaning } : {}),
    })),
  };
}
