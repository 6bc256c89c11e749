import type pg from "pg";
import type { AcknowledgementRequest, PublishedReadModel, ReadModelVersion } from "../types";
import { queryRows } from "./connection";

/** Replaces the shard's published read model (one row per shard). */
export async function publishReadModel(pool: pg.Pool, model: PublishedReadModel): Promise<void> {
  await queryRows(
    pool,
    `INSERT INTO read_models (shard, cycle, taken_at, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (shard) DO UPDATE SET cycle = excluded.cycle, taken_at = excluded.taken_at, body = excluded.body`,
    [model.shard, model.cycle, model.takenAt, model.body],
  );
}

/** Which cycle each shard published, without the bodies (what web instances poll). */
export async function listReadModelVersions(pool: pg.Pool): Promise<ReadModelVersion[]> {
  const rows = await queryRows<{ shard: string; cycle: string; taken_at: string }>(pool, "SELECT shard, cycle, taken_at FROM read_models ORDER BY shard");
  return rows.map((r) => ({ shard: r.shard, cycle: Number(r.cycle), takenAt: Number(r.taken_at) }));
}

export async function readReadModel(pool: pg.Pool, shard: string): Promise<PublishedReadModel | null> {
  const [row] = await queryRows<{ shard: string; cycle: string; taken_at: string; body: string }>(
    pool,
    "SELECT shard, cycle, taken_at, body FROM read_models WHERE shard = $1",
    [shard],
  );
  return row ? { shard: row.shard, cycle: Number(row.cycle), takenAt: Number(row.taken_at), body: row.body } : null;
}

/** Records an acknowledgement for the collector that owns the alert; a second request for the alert replaces the first. */
export async function requestAcknowledgement(pool: pg.Pool, request: AcknowledgementRequest): Promise<void> {
  await queryRows(
    pool,
    `INSERT INTO acknowledgement_requests (alert_id, by_user, at) VALUES ($1, $2, $3)
     ON CONFLICT (alert_id) DO UPDATE SET by_user = excluded.by_user, at = excluded.at`,
    [request.alertId, request.by, request.at],
  );
}

export async function listAcknowledgementRequests(pool: pg.Pool): Promise<AcknowledgementRequest[]> {
  const rows = await queryRows<{ alert_id: string; by_user: string; at: string }>(pool, "SELECT alert_id, by_user, at FROM acknowledgement_requests ORDER BY at, alert_id");
  return rows.map((r) => ({ alertId: r.alert_id, by: r.by_user, at: Number(r.at) }));
}

export async function deleteAcknowledgementRequests(pool: pg.Pool, alertIds: readonly string[]): Promise<void> {
  if (alertIds.length === 0) return;
  await queryRows(pool, "DELETE FROM acknowledgement_requests WHERE alert_id = ANY($1::text[])", [alertIds]);
}
