import type pg from "pg";
import type { NotificationClaim } from "../types";
import { queryRows } from "./connection";

/**
 * Records a notification before it is sent; true only for the first claim of its key. The primary key decides between
 * collectors racing on one transition: exactly one INSERT … ON CONFLICT DO NOTHING returns its row.
 */
export async function claimNotification(pool: pg.Pool, c: NotificationClaim): Promise<boolean> {
  const rows = await queryRows(
    pool,
    "INSERT INTO notification_ledger (alert_id, transition, at, target) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING at",
    [c.alertId, c.transition, c.at, c.target],
  );
  return rows.length === 1;
}

/** The ledger keeps 30 days, as the event timeline. */
export async function pruneNotificationLedger(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM notification_ledger WHERE at < $1", [now - 30 * 24 * 60 * 60 * 1000]);
}
