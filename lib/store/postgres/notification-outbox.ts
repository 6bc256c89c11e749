import type pg from "pg";
import type { NotificationDelivery, NotificationLease, QueuedNotification } from "../types";
import { inTransaction, queryRows } from "./connection";

const keepFinishedMs = 30 * 24 * 60 * 60 * 1000;

interface OutboxRow {
  id: string;
  alert_id: string;
  transition: string;
  at: string;
  target: string;
  queued_at: string;
  payload: string;
  lease_owner: string | null;
  lease_until: string | null;
}

const outboxColumns = "id, alert_id, transition, at, target, queued_at, payload, lease_owner, lease_until";

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

/**
 * Claims the deliveries in the notification ledger and queues those whose claim won, in one statement, on the
 * transaction's client that writes the alerts (index.ts). The ledger's primary key decides between collectors racing on
 * one transition: the second INSERT waits for the first to commit, then does nothing, and queues nothing.
 */
export async function queueNotifications(
  client: pg.PoolClient,
  deliveries: readonly NotificationDelivery[],
  lease: NotificationLease | null,
): Promise<QueuedNotification[]> {
  if (deliveries.length === 0) return [];
  const byKey = new Map(deliveries.map((d) => [`${d.alertId}|${d.transition}|${d.at}|${d.target}`, d]));
  const rows = [...byKey.values()];
  const { rows: queued } = await client.query<OutboxRow>(
    `WITH d AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY
         AS d(alert_id, transition, at, target, queued_at, payload, n)
     ), claimed AS (
       INSERT INTO notification_ledger (alert_id, transition, at, target) SELECT alert_id, transition, at, target FROM d
       ON CONFLICT DO NOTHING RETURNING alert_id, transition, at, target
     )
     INSERT INTO notification_outbox (alert_id, transition, at, target, queued_at, payload, lease_owner, lease_until)
     SELECT d.alert_id, d.transition, d.at, d.target, d.queued_at, d.payload, $7, $8
     FROM d JOIN claimed USING (alert_id, transition, at, target)
     ORDER BY d.n
     RETURNING ${outboxColumns}`,
    [
      rows.map((d) => d.alertId),
      rows.map((d) => d.transition),
      rows.map((d) => d.at),
      rows.map((d) => d.target),
      rows.map((d) => d.queuedAt),
      rows.map((d) => d.payload),
      lease?.owner ?? null,
      lease?.until ?? null,
    ],
  );
  return queued.map(toQueued).sort((a, b) => a.id - b.id);
}

export async function listQueuedNotifications(pool: pg.Pool): Promise<QueuedNotification[]> {
  const rows = await queryRows<OutboxRow>(
    pool,
    `SELECT ${outboxColumns} FROM notification_outbox WHERE finished_at IS NULL ORDER BY id`,
  );
  return rows.map(toQueued);
}

export async function leaseNotifications(pool: pg.Pool, ids: readonly number[], lease: NotificationLease, now: number): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>(
    `UPDATE notification_outbox SET lease_owner = $2, lease_until = $3
     WHERE id = ANY($1::bigint[]) AND finished_at IS NULL AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $4)
     RETURNING id`,
    [ids, lease.owner, lease.until, now],
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

export async function finishNotifications(pool: pg.Pool, ids: readonly number[], outcome: "delivered" | "dropped", at: number): Promise<void> {
  if (ids.length === 0) return;
  await inTransaction(pool, async (client) => {
    await client.query("UPDATE notification_outbox SET outcome = $2, finished_at = $3 WHERE id = ANY($1::bigint[]) AND finished_at IS NULL", [ids, outcome, at]);
  });
}

/** Finished rows are kept 30 days, as the ledger; pending ones until they are delivered or dropped. */
export async function pruneNotificationOutbox(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM notification_outbox WHERE finished_at < $1", [now - keepFinishedMs]);
}
