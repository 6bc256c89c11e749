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
}

/** Builds the JSON body for one batch of transitions. */
export type PayloadBuilder = (transitions: readonly AlertTransition[], context: PayloadContext) => unknown;
