import type pg from "pg";

/** The ledger keeps 30 days, as the event timeline. */
export async function pruneNotificationLedger(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM notification_ledger WHERE at < $1", [now - 30 * 24 * 60 * 60 * 1000]);
}
