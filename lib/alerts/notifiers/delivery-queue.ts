import type { Logger } from "pino";
import { getLogger } from "@/lib/logger";
import { AlertState, TransitionType, type AlertRecord, type AlertTransition, type TransitionTypeName } from "../types";
import { buildAlertmanagerPayload } from "./alertmanager";
import { buildAlertmanagerApiPayload, listPostableAlerts } from "./alertmanager-api";
import { buildSlackPayload } from "./slack";
import { createTargetQueue, type TargetQueue } from "./target-queue";
import { NotifierKind, type NotifierKindName, type NotifierTarget, type PayloadBuilder } from "./types";
import { buildWebhookPayload } from "./webhook";

const builders: Record<NotifierKindName, PayloadBuilder> = {
  [NotifierKind.WEBHOOK]: buildWebhookPayload,
  [NotifierKind.SLACK]: buildSlackPayload,
  [NotifierKind.ALERTMANAGER]: buildAlertmanagerPayload,
  [NotifierKind.ALERTMANAGER_API]: buildAlertmanagerApiPayload,
};

/** Options of createNotifier. */
export interface NotifierOptions {
  targets: readonly NotifierTarget[];
  /** Defaults to the global fetch. */
  fetchImpl?: typeof fetch;
  /** Tries per batch before it is dropped (logged with what it carried). Default 5. */
  maxAttempts?: number;
  /**
   * While the target is down (no response, 408, 429, 5xx) a batch is also retried until this long after
   * its first try. Default 1 800 000 (30 minutes): a shorter outage loses only what maxQueue pushes out.
   */
  retryForMs?: number;
  /** First retry delay; doubles per attempt up to maxDelayMs. Default 1000. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-request timeout. Default 5000. */
  timeoutMs?: number;
  /** Batches (one per cycle with transitions) waiting per target; the oldest is dropped (logged) beyond it. Default 100. */
  maxQueue?: number;
  /** Which transitions are sent. Default fired, refired, resolved. */
  notifyOn?: readonly TransitionTypeName[];
  /** Alertmanager API targets: firing alerts are re-sent at most this often. Default 60 000 (Prometheus's resend delay). */
  resendMs?: number;
  /** Gapwatch's external base URL for links in messages. */
  externalUrl?: string | null;
  logger?: Pick<Logger, "warn" | "error">;
}

/** A running notifier. */
export interface Notifier {
  /** Queues the transitions for every target and returns at once; delivery happens in the background. */
  enqueue(transitions: readonly AlertTransition[]): void;
  /**
   * Called every cycle with all alerts: re-sends the firing ones to Alertmanager API targets once
   * resendMs has passed since the last re-send, so Alertmanager does not end them at their endsAt.
   */
  resendFiring(alerts: readonly AlertRecord[]): void;
  /** Resolves once every queue is empty and idle (tests, graceful shutdown). */
  drain(): Promise<void>;
  /** Stops delivering: queued batches are dropped and pending retries abandoned. */
  stop(): void;
  /** Batches waiting (not counting the one in flight) per target name. */
  countPending(): Record<string, number>;
  /** Batches dropped since start (queue full, or retries given up) per target name. */
  countDropped(): Record<string, number>;
}

/**
 * Delivers alert transitions to webhooks with retries. Each target has its own queue and worker,
 * so a slow or failing endpoint never delays the others nor the caller (the collector's poll
 * loop): enqueue only builds the payloads and pushes them. Failures are retried with exponential
 * backoff (target-queue.ts: a target that is down keeps its batches for retryForMs; at most maxQueue
 * wait) and logged with the target's name and host — never its URL path or headers, which often
 * carry tokens.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const config = {
    fetchImpl: options.fetchImpl ?? fetch,
    maxAttempts: options.maxAttempts ?? 5,
    retryForMs: options.retryForMs ?? 1_800_000,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 5000,
    maxQueue: options.maxQueue ?? 100,
    logger: options.logger ?? getLogger("alerts"),
  };
  const resendMs = options.resendMs ?? 60_000;
  const notifyOn = new Set(options.notifyOn ?? [TransitionType.FIRED, TransitionType.REFIRED, TransitionType.RESOLVED]);
  const queues = options.targets.map((target) => createTargetQueue(target, config));
  const apiQueues = queues.filter((q) => q.target.kind === NotifierKind.ALERTMANAGER_API);
  // As Prometheus: a firing alert's endsAt is 4 re-send intervals ahead; a cycle longer than resendMs
  // re-sends only once per cycle, so the interval is the longer of the two.
  let firingTtlMs = 4 * resendMs;
  let lastCycleAt: number | null = null;
  let lastResendAt: number | null = null;
  const contextFor = (queue: TargetQueue, now: number) => ({
    receiver: queue.target.name,
    externalUrl: options.externalUrl ?? null,
    sentAt: now,
    firingEndsAt: now + firingTtlMs,
  });
  return {
    enqueue(transitions) {
      const selected = transitions.filter((t) => notifyOn.has(t.type));
      if (selected.length === 0) return;
      const now = Date.now();
      // Named in the log line if the batch is dropped: the first 20 transitions, then how many more.
      const carries = selected.slice(0, 20).map((t) => `${t.type} ${t.alert.key}`);
      if (selected.length > 20) carries.push(`(+${selected.length - 20} more)`);
      for (const queue of queues) queue.push({ body: JSON.stringify(builders[queue.target.kind](selected, contextFor(queue, now))), carries, resend: false });
    },
    resendFiring(alerts) {
      const now = Date.now();
      if (lastCycleAt !== null) firingTtlMs = 4 * Math.max(resendMs, now - lastCycleAt);
      lastCycleAt = now;
      if (apiQueues.length === 0 || (lastResendAt !== null && now - lastResendAt < resendMs)) return;
      lastResendAt = now;
      const firing = alerts.filter((a) => a.state === AlertState.FIRING);
      if (firing.length === 0) return;
      // A newer re-send carries every firing alert: it replaces one still waiting.
      const carries = [`re-send of ${firing.length} firing alerts`];
      for (const queue of apiQueues) queue.push({ body: JSON.stringify(listPostableAlerts(firing, contextFor(queue, now))), carries, resend: true });
    },
    async drain() {
      await Promise.all(queues.map((q) => q.idle()));
    },
    stop() {
      for (const queue of queues) queue.stop();
    },
    countPending() {
      return Object.fromEntries(queues.map((q) => [q.target.name, q.size()]));
    },
    countDropped() {
      return Object.fromEntries(queues.map((q) => [q.target.name, q.countDropped()]));
    },
  };
}
