import { cutBodyChunks } from "./body-chunks";
import type { SqliteDb } from "./db";
import type { AcknowledgementRequest, PublishedReadModel, ReadModelPublication, ReadModelVersion } from "./types";

/**
 * The size of a published body's chunks, each a row of `read_model_chunks` (migration 12): SQLite copies a bound BLOB
 * twice as it writes it (the value, then the record), so a write holds a chunk twice, not the body (85 MiB at 100,000
 * partitions). Every chunk but the last is this size, so most overwrite the previous cycle's in place.
 */
export const readModelChunkBytes = 1 << 20;

/**
 * Replaces the shard's published read model (one version row per shard, the body in chunks after it); a body in
 * pieces is cut into the same chunks as the whole, never joined.
 */
export function publishReadModel(db: SqliteDb, model: ReadModelPublication): void {
  const writeChunk = db.prepare(
    `INSERT INTO read_model_chunks (shard, seq, bytes) VALUES (?, ?, ?)
     ON CONFLICT (shard, seq) DO UPDATE SET bytes = excluded.bytes`,
  );
  db.transaction(() => {
    db.prepare(
      `INSERT INTO read_models (shard, cycle, taken_at) VALUES (?, ?, ?)
       ON CONFLICT (shard) DO UPDATE SET cycle = excluded.cycle, taken_at = excluded.taken_at`,
    ).run(model.shard, model.cycle, model.takenAt);
    let seq = 0;
    for (const chunk of cutBodyChunks(model.body, readModelChunkBytes)) writeChunk.run(model.shard, seq++, chunk);
    db.prepare("DELETE FROM read_model_chunks WHERE shard = ? AND seq >= ?").run(model.shard, seq);
  })();
}

/** Which cycle each shard published, without the bodies (what web instances poll). */
export function listReadModelVersions(db: SqliteDb): ReadModelVersion[] {
  return db.prepare("SELECT shard, cycle, taken_at AS takenAt FROM read_models ORDER BY shard").all() as ReadModelVersion[];
}

/**
 * A shard's published model, its chunks copied one by one into one Buffer of their total length (a Buffer of its
 * own: 8-byte aligned, as the columnar decoder's typed arrays want it), in one read transaction.
 */
export function readReadModel(db: SqliteDb, shard: string): PublishedReadModel | null {
  return db.transaction(() => {
    const version = db.prepare(
      `SELECT shard, cycle, taken_at AS takenAt,
         (SELECT coalesce(sum(length(bytes)), 0) FROM read_model_chunks WHERE shard = r.shard) AS length
       FROM read_models r WHERE shard = ?`,
    ).get(shard) as (ReadModelVersion & { length: number }) | undefined;
    if (version === undefined) return null;
    const body = Buffer.allocUnsafeSlow(version.length);
    let end = 0;
    const chunks = db.prepare("SELECT bytes FROM read_model_chunks WHERE shard = ? ORDER BY seq").pluck();
    for (const chunk of chunks.iterate(shard) as IterableIterator<Buffer>) end += chunk.copy(body, end);
    return { shard: version.shard, cycle: version.cycle, takenAt: version.takenAt, body };
  })();
}

/** Deletes the shard's version row and its chunks if the row is still `version` (Store.retireReadModel). */
export function retireReadModel(db: SqliteDb, version: ReadModelVersion): boolean {
  return db.transaction(() => {
    const { changes } = db
      .prepare("DELETE FROM read_models WHERE shard = ? AND cycle = ? AND taken_at = ?")
      .run(version.shard, version.cycle, version.takenAt);
    if (changes > 0) db.prepare("DELETE FROM read_model_chunks WHERE shard = ?").run(version.shard);
    return changes > 0;
  })();
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
