/**
 * Notifier targets and the payload context they share.
 */
import type { AlertTransition } from "../types";

/** Payload formats a target can receive. */
export const NotifierKind = {
  /** Gapwatch's own JSON: `{ version, source, sentAt, transitions: [{ type, alert }] }`. */
  WEBHOOK: "webhook",
  /** Slack incoming webhook (and compatibles such as Mattermost): `{ text, blocks }`. */
  SLACK: "slack",
  /** What Alertmanager's webhook_config sends (version "4"), for receivers that already speak it. */
  ALERTMANAGER: "alertmanager",
  /** Alertmanager's own API (`POST <alertmanager>/api/v2/alerts`), as Prometheus delivers; firing alerts are re-sent. */
  ALERTMANAGER_API: "alertmanager-api",
} as const;
export type NotifierKindName = (typeof NotifierKind)[keyof typeof NotifierKind];

/** One place notifications go. The URL and headers may hold secrets: they are never logged. */
export interface NotifierTarget {
  name: string;
  kind: NotifierKindName;
  url: string;
  headers?: Record<string, string>;
}

/** What payload builders may use besides the transitions. */
export interface PayloadContext {
  /** Target name (Alertmanager's `receiver`). */
  receiver: string;
  /** Gapwatch's external base URL for links, or null. */
  externalUrl: string | null;
  /** When the payload is built (epoch ms). */
  sentAt: number;
  /** Alertmanager API: the endsAt of a firing alert (epoch ms), unless it is re-sent before then. */
  firingEndsAt: number;
}

/** Builds the JSON body for one batch of transitions. */
export type PayloadBuilder = (transitions: readonly AlertTransition[], context: PayloadContext) => unknown;
