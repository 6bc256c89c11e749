import type { Dialect } from "./engine/dialect";
import { all, insertRows, run, transaction, type Work } from "./engine/steps";
import type { NotificationDelivery, NotificationLease, QueuedNotification } from "./types";

const keepFinishedMs = 30 * 24 * 60 * 60 * 1000;

/** A row of notification_outbox; int8 columns come back as numbers (SQLite) or decimal text (PostgreSQL). */
interface OutboxRow {
  id: string | number;
  alert_id: string;
  transition: string;
  at: string | number;
  target: string;
  queued_at: string | number;
  payload: string;
  lease_owner: string | null;
  lease_until: string | number | null;
}

const outboxColumns = ["id", "alert_id", "transition", "at", "target", "queued_at", "payload", "lease_owner", "lease_until"];

const toQueued = (r: OutboxRow): QueuedNotification => ({
  id: Number(r.id),
  alertId: r.alert_id,
  transition: r.transition,
  at: Number(r.at),
  target: r.target,
  queuedAt: Number(r.queued_at),
  payload: r.payload,
  lease: r.lease_owner === null || r.lease_until === null ? null : { owner: r.lease_owner, until: Number(r.lease_until) },
});

const keyOf = (d: { alertId: string; transition: string; at: number; target: string }) => `${d.alertId}|${d.transition}|${d.at}|${d.target}`;

/**
 * Claims each delivery in the notification ledger and queues the ones whose claim won; run it inside the transaction
 * that writes the alerts (index.ts), so the alert and what it owes its targets are stored together. The ledger's
 * primary key decides between collectors racing on one transition: the second INSERT waits for the first to commit,
 * then does nothing, and queues nothing.
 */
export function* queueNotifications(deliveries: readonly NotificationDelivery[], lease: NotificationLease | null): Work<QueuedNotification[]> {
  if (deliveries.length === 0) return [];
  const byKey = new Map(deliveries.map((d) => [keyOf(d), d]));
  const claimed = yield* insertRows<{ alert_id: string; transition: string; at: string | number; target: string }>({
    table: "notification_ledger",
    columns: [
      { name: "alert_id", type: "text" },
      { name: "transition", type: "text" },
      { name: "at", type: "bigint" },
      { name: "target", type: "text" },
    ],
    rows: [...byKey.values()].map((d) => [d.alertId, d.transition, d.at, d.target]),
    conflict: "nothing",
    returning: ["alert_id", "transition", "at", "target"],
  });
  const won = new Set(claimed.map((c) => keyOf({ alertId: c.alert_id, transition: c.transition, at: Number(c.at), target: c.target })));
  const queued = yield* insertRows<OutboxRow>({
    table: "notification_outbox",
    columns: [
      { name: "alert_id", type: "text" },
      { name: "transition", type: "text" },
      { name: "at", type: "bigint" },
      { name: "target", type: "text" },
      { name: "queued_at", type: "bigint" },
      { name: "payload", type: "text" },
      { name: "lease_owner", type: "text" },
      { name: "lease_until", type: "bigint" },
    ],
    rows: [...byKey.values()]
      .filter((d) => won.has(keyOf(d)))
      .map((d) => [d.alertId, d.transition, d.at, d.target, d.queuedAt, d.payload, lease?.owner ?? null, lease?.until ?? null]),
    returning: outboxColumns,
  });
  return queued.map(toQueued).sort((a, b) => a.id - b.id);
}

/** The notifications not delivered or dropped yet, oldest first. */
export function* listQueuedNotifications(): Work<QueuedNotification[]> {
  const rows = yield* all<OutboxRow>(`SELECT ${outboxColumns.join(", ")} FROM notification_outbox WHERE finished_at IS NULL ORDER BY id`);
  return rows.map(toQueued);
}

/** Takes (or renews) the lease of the unfinished rows free, expired or already ours; the ids taken, ascending. */
export function* leaseNotifications(dialect: Dialect, ids: readonly number[], lease: NotificationLease, now: number): Work<number[]> {
  if (ids.length === 0) return [];
  const rows = yield* transaction(() =>
    all<{ id: string | number }>(
      `UPDATE notification_outbox SET lease_owner = ?, lease_until = ?
       WHERE ${dialect.inList("id", "bigint")} AND finished_at IS NULL AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)
       RETURNING id`,
      [lease.owner, lease.until, dialect.list(ids), lease.owner, now],
    ),
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Marks the rows delivered or dropped. */
export function* finishNotifications(dialect: Dialect, ids: readonly number[], outcome: "delivered" | "dropped", at: number): Work<void> {
  if (ids.length === 0) return;
  yield* run(`UPDATE notification_outbox SET outcome = ?, finished_at = ? WHERE ${dialect.inList("id", "bigint")} AND finished_at IS NULL`, [
    outcome,
    at,
    dialect.list(ids),
  ]);
}

/** Finished rows are kept 30 days, as the ledger; pending ones until they are delivered or dropped. */
export function* pruneNotificationOutbox(now: number): Work<void> {
  yield* run("DELETE FROM notification_outbox WHERE finished_at < ?", [now - keepFinishedMs]);
}

/** The ledger keeps 30 days, as the event timeline: a transition is never re-sent after that long. */
export function* pruneNotificationLedger(now: number): Work<void> {
  yield* run("DELETE FROM notification_ledger WHERE at < ?", [now - 30 * 24 * 60 * 60 * 1000]);
}
