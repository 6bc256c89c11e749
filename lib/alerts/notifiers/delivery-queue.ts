import type { Logger } from "pino";
import { getLogger } from "@/lib/logger";
import type { NotificationClaim } from "@/lib/store";
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
  /**
   * The notification ledger (Store.claimNotification): each transition is recorded per target before it is sent
   * and sent only when this claim recorded it, so a restart or a shard's new owner never sends it twice. A claim
   * that fails (store down) is sent all the same and logged: a page sent twice beats a page lost (the alert service
   * notifies when the store fails). Default: every transition is sent.
   */
  claim?: (claim: NotificationClaim) => Promise<boolean>;
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
  // Claims run one batch after another, so batches reach each queue in cycle order.
  let claiming = Promise.resolve();
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
      const push = (queue: TargetQueue, batch: readonly AlertTransition[]) => {
        if (batch.length === 0) return;
        queue.push({ body: JSON.stringify(builders[queue.target.kind](batch, contextFor(queue, now))), carries: describeBatch(batch), resend: false });
      };
      const claim = options.claim;
      if (!claim) {
        for (const queue of queues) push(queue, selected);
        return;
      }
      claiming = claiming.then(async () => {
        for (const queue of queues) {
          const won = await Promise.all(selected.map((t) => claimOrSend(claim, t, queue.target.name, config.logger)));
          push(queue, selected.filter((_, i) => won[i]));
        }
      });
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
      await claiming;
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

/** Named in the log line if a batch is dropped: the first 20 transitions, then how many more. */
function describeBatch(transitions: readonly AlertTransition[]): string[] {
  const carries = transitions.slice(0, 20).map((t) => `${t.type} ${t.alert.key}`);
  if (transitions.length > 20) carries.push(`(+${transitions.length - 20} more)`);
  return carries;
}

/** Whether to send a transition to a target: its claim won, or the ledger could not be read (sent, and logged). */
async function claimOrSend(
  claim: (claim: NotificationClaim) => Promise<boolean>,
  transition: AlertTransition,
  target: string,
  logger: Pick<Logger, "warn" | "error">,
): Promise<boolean> {
  try {
    return await claim(claimOf(transition, target));
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    logger.error({ error, target, alert: transition.alert.key, transition: transition.type }, "the notification ledger failed; sent anyway, once more if it had been sent");
    return true;
  }
}

/** The ledger key of a transition for one target: the cycle that made it is when it set its time (reconcile-alerts.ts). */
function claimOf(t: AlertTransition, target: string): NotificationClaim {
  const at = t.type === TransitionType.FIRED ? t.alert.firstSeen : t.type === TransitionType.RESOLVED ? (t.alert.resolvedAt ?? t.alert.lastSeen) : t.alert.lastSeen;
  return { alertId: t.alert.id, transition: t.type, at, target };
}
