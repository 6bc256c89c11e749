import { isLossAlert, stoppedGrowingMeaning } from "../loss-alerts";
import type { AlertTransition } from "../types";
import type { PayloadContext } from "./types";

/** Slack allows 50 blocks per message; keep room for the overflow line. */
const MAX_SECTIONS = 40;

const icons: Record<AlertTransition["type"], string> = {
  fired: ":rotating_light:",
  refired: ":rotating_light:",
  updated: ":arrows_counterclockwise:",
  resolved: ":white_check_mark:",
};

/**
 * Slack incoming-webhook body: `text` is the notification/fallback line, `blocks` one mrkdwn
 * section per transition (https://api.slack.com/messaging/webhooks).
 */
export function buildSlackPayload(transitions: readonly AlertTransition[], context: PayloadContext) {
  const lines = transitions.map(describeTransition);
  const sections = transitions.slice(0, MAX_SECTIONS).map((t, i) => ({
    type: "section",
    text: { type: "mrkdwn", text: `${lines[i]}${linkTo(t, context)}` },
  }));
  const overflow = transitions.length - sections.length;
  const blocks = overflow > 0 ? [...sections, { type: "context", elements: [{ type: "mrkdwn", text: `…and ${overflow} more` }] }] : sections;
  return { text: lines.length === 1 ? (lines[0] ?? "") : `Gapwatch: ${lines.length} alert changes`, blocks };
}

function describeTransition({ type, alert }: AlertTransition): string {
  const scope = [alert.flow, alert.cluster].filter((s) => s !== null).join(" · ");
  // A loss that resolved only stopped growing: its records stay lost (loss-alerts.ts).
  const stopped = type === "resolved" && isLossAlert(alert);
  const label = stopped ? "STOPPED GROWING" : type.toUpperCase();
  const where = scope === "" ? "" : ` (${scope})`;
  const meaning = stopped ? ` — ${stoppedGrowingMeaning}` : "";
  return `${stopped ? ":warning:" : icons[type]} *${label}* ${alert.severity} ${alert.type}${where}: ${alert.summary}${meaning}`;
}

function linkTo({ alert }: AlertTransition, context: PayloadContext): string {
  return context.externalUrl === null ? "" : ` <${context.externalUrl}/alerts/${alert.id}|open>`;
}
