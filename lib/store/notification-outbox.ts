import type { SqliteDb } from "./db";
import { claimNotification } from "./notification-ledger";
import type { NotificationDelivery, NotificationLease, QueuedNotification } from "./types";

const keepFinishedMs = 30 * 24 * 60 * 60 * 1000;

interface OutboxRow {
  id: number;
  alert_id: string;
  transition: string;
  at: number;
  target: string;
  queued_at: number;
  payload: string;
  lease_owner: string | null;
  lease_until: number | null;
}

const toQueued = (r: OutboxRow): QueuedNotification => ({
  id: r.id,
  alertId: r.alert_id,
  transition: r.transition,
  at: r.at,
  target: r.target,
  queuedAt: r.queued_at,
  payload: r.payload,
  lease: r.lease_owner === null || r.lease_until === null ? null : { owner: r.lease_owner, until: r.lease_until },
});

/**
 * Claims each delivery in the notification ledger and queues it in the outbox when the claim wins; call it inside the
 * transaction that writes the alerts (index.ts), so the alert and what it owes its targets are stored together.
 */
export function queueNotifications(db: SqliteDb, deliveries: readonly NotificationDelivery[], lease: NotificationLease | null): QueuedNotification[] {
  const insert = db.prepare(
    `INSERT INTO notification_outbox (alert_id, transition, at, target, queued_at, payload, lease_owner, lease_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const queued: QueuedNotification[] = [];
  for (const d of deliveries) {
    if (!claimNotification(db, d)) continue;
    const { lastInsertRowid } = insert.run(d.alertId, d.transition, d.at, d.target, d.queuedAt, d.payload, lease?.owner ?? null, lease?.until ?? null);
    queued.push({ ...d, id: Number(lastInsertRowid), lease });
  }
  return queued;
}

export function listQueuedNotifications(db: SqliteDb): QueuedNotification[] {
  const rows = db
    .prepare(
      `SELECT id, alert_id, transition, at, target, queued_at, payload, lease_owner, lease_until FROM notification_outbox
       WHERE finished_at IS NULL ORDER BY id`,
    )
    .all() as OutboxRow[];
  return rows.map(toQueued);
}

export function leaseNotifications(db: SqliteDb, ids: readonly number[], lease: NotificationLease, now: number): number[] {
  const take = db.prepare(
    `UPDATE notification_outbox SET lease_owner = ?, lease_until = ?
     WHERE id = ? AND finished_at IS NULL AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)`,
  );
  return db.transaction(() => ids.filter((id) => take.run(lease.owner, lease.until, id, lease.owner, now).changes > 0))();
}

export function finishNotifications(db: SqliteDb, ids: readonly number[], outcome: "delivered" | "dropped", at: number): void {
  const finish = db.prepare("UPDATE notification_outbox SET outcome = ?, finished_at = ? WHERE id = ? AND finished_at IS NULL");
  db.transaction(() => {
    for (const id of ids) finish.run(outcome, at, id);
  })();
}

/** Finished rows are kept 30 days, as the ledger; pending ones until they are delivered or dropped. */
export function pruneNotificationOutbox(db: SqliteDb, now: number): void {
  db.prepare("DELETE FROM notification_outbox WHERE finished_at < ?").run(now - keepFinishedMs);
}
