import type { SqliteDb } from "./db";
import type { NotificationClaim } from "./types";

/** Records a notification before it is queued; true only for the first claim of its key (INSERT … DO NOTHING won). */
export function claimNotification(db: SqliteDb, c: NotificationClaim): boolean {
  const result = db
    .prepare("INSERT INTO notification_ledger (alert_id, transition, at, target) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
    .run(c.alertId, c.transition, c.at, c.target);
  return result.changes === 1;
}

/** The ledger keeps 30 days, as the event timeline: a transition is never re-sent after that long. */
export function pruneNotificationLedger(db: SqliteDb, now: number): void {
  db.prepare("DELETE FROM notification_ledger WHERE at < ?").run(now - 30 * 24 * 60 * 60 * 1000);
}
