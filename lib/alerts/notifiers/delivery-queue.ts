import type { Logger } from "pino";
import { getLogger } from "@/lib/logger";
import type { NotificationClaim, NotificationDelivery, NotificationLease, QueuedNotification, Store } from "@/lib/store";
import { AlertState, TransitionType, type AlertRecord, type AlertTransition, type TransitionTypeName } from "../types";
import { buildAlertmanagerPayload } from "./alertmanager";
import { buildAlertmanagerApiPayload, listPostableAlerts } from "./alertmanager-api";
import { buildSlackPayload } from "./slack";
import { type Batch, createTargetQueue, type TargetQueue } from "./target-queue";
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
   * The store's notification outbox. Its rows (written by Store.saveAlerts with the alerts, from listDeliveries) are
   * delivered through enqueueQueued and marked delivered or dropped there; those still pending when this notifier
   * is created (a crash or a restart before they were sent) are queued again at once, each row once.
   */
  outbox?: Pick<Store, "listQueuedNotifications" | "leaseNotifications" | "finishNotifications">;
  /**
   * A collector sharing the work: the outbox rows it sends are leased to `owner` for `ms` (renewed every third of it
   * while queued or in flight, retries included), and it takes other rows only through takeOverPending, once their
   * lease ran out. Without it (one Gapwatch process) every pending row is queued at start.
   */
  lease?: { owner: string; ms: number };
}

/** A running notifier. */
export interface Notifier {
  /** The deliveries a cycle's transitions owe: one per target and notified transition, for Store.saveAlerts. */
  listDeliveries(transitions: readonly AlertTransition[], now: number): NotificationDelivery[];
  /** Queues outbox rows (those Store.saveAlerts returned) and returns at once; delivered in the background. */
  enqueueQueued(rows: readonly QueuedNotification[]): void;
  /** The lease to write the cycle's outbox rows with (Store.saveAlerts), or undefined without the lease option. */
  leaseFor(now: number): NotificationLease | undefined;
  /**
   * Leases and queues the outbox's pending rows whose transition `belongs` here (a held shard's) and that no live
   * collector holds: never leased, or their lease ran out (their collector died, or lost the store for a whole
   * lease). A row another collector still renews is its to finish, through a rebalance too: never sent by both.
   */
  takeOverPending(belongs: (transition: AlertTransition) => boolean): void;
  /**
   * Queues transitions the store could not keep (its write failed) for every target, from memory: not in the
   * outbox nor the ledger, so a crash loses them and a restart cannot know they were sent.
   */
  enqueue(transitions: readonly AlertTransition[]): void;
  /**
   * Called every cycle with all alerts: re-sends the firing ones to Alertmanager API targets once
   * resendMs has passed since the last re-send, so Alertmanager does not end them at their endsAt.
   */
  resendFiring(alerts: readonly AlertRecord[]): void;
  /** Resolves once every queue is empty and idle (tests, graceful shutdown). */
  drain(): Promise<void>;
  /** Stops delivering: queued batches are dropped, retries and lease renewals abandoned (outbox rows stay). */
  stop(): void;
  /** Batches waiting (not counting the one in flight) per target name. */
  countPending(): Record<string, number>;
  /** Batches dropped since start (queue full, or retries given up) per target name. */
  countDropped(): Record<string, number>;
}

/**
 * Delivers alert transitions to webhooks with retries. Each target has its own queue and worker,
 * so a slow or failing endpoint never delays the others nor the caller (the collector's poll
 * loop): enqueueing only builds the payloads and pushes them. With the store's outbox, what is sent was written
 * with the alerts first; each batch is marked delivered or dropped there once settled, so only a crash between a
 * receiver's answer and that mark (one row update) sends a batch twice, and a crash at any other point loses none. Failures are retried with exponential
 * backoff (target-queue.ts: a target that is down keeps its batches for retryForMs; at most maxQueue
 * wait) and logged with the target's name and host — never its URL path or headers, which often
 * carry tokens.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const outbox = options.outbox;
  const logger = options.logger ?? getLogger("alerts");
  // Outbox rows queued or in flight: a row read again at start while queued is not queued twice.
  const active = new Set<number>();
  const settle = (batch: Batch, outcome: "delivered" | "dropped") => {
    if (!outbox || batch.ids.length === 0) return;
    outbox
      .finishNotifications(batch.ids, outcome, Date.now())
      .catch((err: unknown) => {
        const error = err instanceof Error ? err.message : String(err);
        logger.error({ error, outcome, carries: batch.carries }, "marking notifications in the outbox failed; a restart sends them again");
      })
      .finally(() => batch.ids.forEach((id) => active.delete(id)));
  };
  const config = {
    fetchImpl: options.fetchImpl ?? fetch,
    maxAttempts: options.maxAttempts ?? 5,
    retryForMs: options.retryForMs ?? 1_800_000,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 5000,
    maxQueue: options.maxQueue ?? 100,
    logger,
    settle,
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
  const push = (queue: TargetQueue, batch: readonly AlertTransition[], ids: number[]) => {
    if (batch.length === 0) return;
    const body = JSON.stringify(builders[queue.target.kind](batch, contextFor(queue, Date.now())));
    queue.push({ body, carries: describeBatch(batch), resend: false, ids });
  };
  /** Outbox rows into batches: one per target and cycle (queuedAt), in the order they were written. */
  const pushRows = (rows: readonly QueuedNotification[]) => {
    const groups = new Map<string, QueuedNotification[]>();
    for (const row of rows.filter((r) => !active.has(r.id))) {
      const key = JSON.stringify([row.target, row.queuedAt]);
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    }
    for (const [first, ...rest] of groups.values()) {
      const group = [first!, ...rest];
      const ids = group.map((r) => r.id);
      ids.forEach((id) => active.add(id));
      const transitions = group.map((r) => JSON.parse(r.payload) as AlertTransition);
      const queue = queues.find((q) => q.target.name === first!.target);
      if (queue) {
        push(queue, transitions, ids);
        continue;
      }
      logger.error({ target: first!.target, dropped: describeBatch(transitions) }, "queued notifications for a target no longer configured; dropped");
      settle({ body: "", carries: describeBatch(transitions), resend: false, ids }, "dropped");
    }
  };
  const lease = options.lease;
  const renewLeases = async (held: NonNullable<typeof lease>, store: NonNullable<typeof outbox>) => {
    const ids = [...active];
    if (ids.length === 0) return;
    try {
      const now = Date.now();
      const kept = new Set(await store.leaseNotifications(ids, { owner: held.owner, until: now + held.ms }, now));
      const lost = ids.filter((id) => !kept.has(id) && active.has(id));
      // Finished meanwhile, or taken by another collector after this one could not renew for a whole lease.
      if (lost.length > 0) logger.warn({ ids: lost }, "outbox rows this collector still holds were finished or taken over; another may send them too");
    } catch (err) {
      logger.error({ error: err instanceof Error ? err.message : String(err) }, "renewing the outbox leases failed; tried again shortly");
    }
  };
  const renewal = lease && outbox ? setInterval(() => void renewLeases(lease, outbox), lease.ms / 3) : null;
  renewal?.unref();
  // Start-up, then each cycle's rows, one after another: a row is never queued by both (`active`). A failed read of
  // the pending rows is tried again with the next cycle's rows.
  let restored = !outbox || lease !== undefined;
  const restore = async () => {
    if (restored || !outbox) return;
    try {
      pushRows(await outbox.listQueuedNotifications());
      restored = true;
    } catch (err) {
      logger.error({ error: err instanceof Error ? err.message : String(err) }, "reading the notification outbox failed; tried again with the next cycle");
    }
  };
  let chain = restore();
  return {
    listDeliveries(transitions, now) {
      const selected = transitions.filter((t) => notifyOn.has(t.type));
      const payloads = selected.map((t) => JSON.stringify({ type: t.type, alert: t.alert }));
      return queues.flatMap((q) => selected.map((t, i) => ({ ...claimOf(t, q.target.name), queuedAt: now, payload: payloads[i]! })));
    },
    enqueueQueued(rows) {
      chain = chain.then(restore).then(() => pushRows(rows));
    },
    leaseFor(now) {
      return lease ? { owner: lease.owner, until: now + lease.ms } : undefined;
    },
    takeOverPending(belongs) {
      if (!outbox || !lease) return;
      chain = chain.then(async () => {
        try {
          const now = Date.now();
          const free = (row: QueuedNotification) => row.lease === null || row.lease.until < now || row.lease.owner === lease.owner;
          const rows = (await outbox.listQueuedNotifications()).filter((r) => !active.has(r.id) && free(r) && belongs(JSON.parse(r.payload) as AlertTransition));
          if (rows.length === 0) return;
          const won = new Set(await outbox.leaseNotifications(rows.map((r) => r.id), { owner: lease.owner, until: now + lease.ms }, now));
          pushRows(rows.filter((r) => won.has(r.id)));
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          logger.error({ error }, "taking over the outbox rows of held shards failed; tried again with the next cycle");
        }
      });
    },
    enqueue(transitions) {
      const selected = transitions.filter((t) => notifyOn.has(t.type));
      for (const queue of queues) push(queue, selected, []);
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
      for (const queue of apiQueues) queue.push({ body: JSON.stringify(listPostableAlerts(firing, contextFor(queue, now))), carries, resend: true, ids: [] });
    },
    async drain() {
      await chain;
      await Promise.all(queues.map((q) => q.idle()));
    },
    stop() {
      if (renewal) clearInterval(renewal);
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

/** The ledger key of a transition for one target: the cycle that made it is when it set its time (reconcile-alerts.ts). */
function claimOf(t: AlertTransition, target: string): NotificationClaim {
  const at = t.type === TransitionType.FIRED ? t.alert.firstSeen : t.type === TransitionType.RESOLVED ? (t.alert.resolvedAt ?? t.alert.lastSeen) : t.alert.lastSeen;
  return { alertId: t.alert.id, transition: t.type, at, target };
}
