import type { SqliteDb } from "./db";
import type { AcknowledgementRequest, PublishedReadModel, ReadModelVersion } from "./types";

/** Replaces the shard's published read model (one row per shard). */
export function publishReadModel(db: SqliteDb, model: PublishedReadModel): void {
  db.prepare(
    `INSERT INTO read_models (shard, cycle, taken_at, body) VALUES (?, ?, ?, ?)
     ON CONFLICT (shard) DO UPDATE SET cycle = excluded.cycle, taken_at = excluded.taken_at, body = excluded.body`,
  ).run(model.shard, model.cycle, model.takenAt, model.body);
}

/** Which cycle each shard published, without the bodies (what web instances poll). */
export function listReadModelVersions(db: SqliteDb): ReadModelVersion[] {
  return db.prepare("SELECT shard, cycle, taken_at AS takenAt FROM read_models ORDER BY shard").all() as ReadModelVersion[];
}

/** A shard's published model; its body a BLOB since migration 11 (text before it: the migration converted it). */
export function readReadModel(db: SqliteDb, shard: string): PublishedReadModel | null {
  return (db.prepare("SELECT shard, cycle, taken_at AS takenAt, body FROM read_models WHERE shard = ?").get(shard) as PublishedReadModel | undefined) ?? null;
}

/** Records an acknowledgement for the collector that owns the alert; a second request for the alert replaces the first. */
export function requestAcknowledgement(db: SqliteDb, request: AcknowledgementRequest): void {
  db.prepare(
    `INSERT INTO acknowledgement_requests (alert_id, by_user, at) VALUES (?, ?, ?)
     ON CONFLICT (alert_id) DO UPDATE SET by_user = excluded.by_user, at = excluded.at`,
  ).run(request.alertId, request.by, request.at);
}

export function listAcknowledgementRequests(db: SqliteDb): AcknowledgementRequest[] {
  return db.prepare("SELECT alert_id AS alertId, by_user AS by, at FROM acknowledgement_requests ORDER BY at, alert_id").all() as AcknowledgementRequest[];
}

export function deleteAcknowledgementRequests(db: SqliteDb, alertIds: readonly string[]): void {
  const remove = db.prepare("DELETE FROM acknowledgement_requests WHERE alert_id = ?");
  db.transaction(() => {
    for (const id of alertIds) remove.run(id);
  })();
}
