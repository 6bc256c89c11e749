import type { SqliteDb } from "./db";
import { claimNotification } from "./notification-ledger";
import type { NotificationDelivery, QueuedNotification } from "./types";

const keepFinishedMs = 30 * 24 * 60 * 60 * 1000;

interface OutboxRow {
  id: number;
  alert_id: string;
  transition: string;
  at: number;
  target: string;
  queued_at: number;
  payload: string;
}

/**
 * Claims each delivery in the notification ledger and queues it in the outbox when the claim wins; call it inside the
 * transaction that writes the alerts (index.ts), so the alert and what it owes its targets are stored together.
 */
export function queueNotifications(db: SqliteDb, deliveries: readonly NotificationDelivery[]): QueuedNotification[] {
  const insert = db.prepare("INSERT INTO notification_outbox (alert_id, transition, at, target, queued_at, payload) VALUES (?, ?, ?, ?, ?, ?)");
  const queued: QueuedNotification[] = [];
  for (const d of deliveries) {
    if (!claimNotification(db, d)) continue;
    const { lastInsertRowid } = insert.run(d.alertId, d.transition, d.at, d.target, d.queuedAt, d.payload);
    queued.push({ ...d, id: Number(lastInsertRowid) });
  }
  return queued;
}

export function listQueuedNotifications(db: SqliteDb): QueuedNotification[] {
  const rows = db
    .prepare("SELECT id, alert_id, transition, at, target, queued_at, payload FROM notification_outbox WHERE finished_at IS NULL ORDER BY id")
    .all() as OutboxRow[];
  return rows.map((r) => ({ id: r.id, alertId: r.alert_id, transition: r.transition, at: r.at, target: r.target, queuedAt: r.queued_at, payload: r.payload }));
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
