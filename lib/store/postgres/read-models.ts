import { promisify } from "node:util";
import { constants as bufferConstants } from "node:buffer";
import { constants as zlibConstants, gunzip, gzip } from "node:zlib";
import type pg from "pg";
import type { AcknowledgementRequest, PublishedReadModel, ReadModelPublication, ReadModelVersion } from "../types";
import { queryRows } from "./connection";

/** zlib on libuv's thread pool: neither the collector's nor a web instance's event loop compresses. */
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
/** The fastest level: a 36 MiB body (10,010 partitions) to 2.1 MiB in ~0.15 s of a pool thread. */
const gzipLevel = 1;
const maxBufferLength = bufferConstants.MAX_LENGTH;

/**
 * Replaces the shard's published read model (one row per shard), its body gzip-compressed (migration 12); a body in
 * pieces is joined first (zlib compresses one buffer).
 */
export async function publishReadModel(pool: pg.Pool, model: ReadModelPublication): Promise<void> {
  const body = Buffer.isBuffer(model.body) ? model.body : Buffer.concat(model.body);
  const packed = await gzipAsync(body, { level: gzipLevel });
  await queryRows(
    pool,
    `INSERT INTO read_models (shard, cycle, taken_at, body, packed) VALUES ($1, $2, $3, NULL, $4)
     ON CONFLICT (shard) DO UPDATE SET cycle = excluded.cycle, taken_at = excluded.taken_at, body = NULL, packed = excluded.packed`,
    [model.shard, model.cycle, model.takenAt, packed],
  );
}

/**
 * The size a gzip member records in its last 4 bytes (mod 2^32), at least zlib's default chunk: as one output chunk
 * (one byte more, so that zlib does not ask for another) the inflated body comes back as one buffer, instead of
 * ~2,300 chunks of 16 KiB that the event loop collects and concatenates (36 MiB at 10,010 partitions: 63–89 ms of
 * event-loop time, 4–15 ms as one chunk).
 */
function readGzipSize(packed: Buffer): number {
  return Math.min(Math.max(zlibConstants.Z_DEFAULT_CHUNK, packed.length >= 4 ? packed.readUInt32LE(packed.length - 4) : 0), maxBufferLength - 1);
}

/** Which cycle each shard published, without the bodies (what web instances poll). */
export async function listReadModelVersions(pool: pg.Pool): Promise<ReadModelVersion[]> {
  const rows = await queryRows<{ shard: string; cycle: string; taken_at: string }>(pool, "SELECT shard, cycle, taken_at FROM read_models ORDER BY shard");
  return rows.map((r) => ({ shard: r.shard, cycle: Number(r.cycle), takenAt: Number(r.taken_at) }));
}

/**
 * A shard's published model. A collector of a version before migration 12 writes the body as text and leaves `packed`
 * as it was, while later versions write `packed` and clear the text: a text body is always the newer one, read back
 * as its UTF-8 bytes. `packed` holds whichever bytes the collector published (since 2026-12-07 the columnar bytes
 * form, before it the UTF-8 of its text form): the decoder tells them apart by their first line.
 */
export async function readReadModel(pool: pg.Pool, shard: string): Promise<PublishedReadModel | null> {
  const [row] = await queryRows<{ shard: string; cycle: string; taken_at: string; body: string | null; packed: Buffer | null }>(
    pool,
    "SELECT shard, cycle, taken_at, body, packed FROM read_models WHERE shard = $1",
    [shard],
  );
  if (!row) return null;
  let body: Buffer;
  if (row.body !== null) body = Buffer.from(row.body);
  else if (row.packed !== null) body = await gunzipAsync(row.packed, { chunkSize: readGzipSize(row.packed) + 1 });
  else throw new Error(`the published read model of shard ${shard} has no body`);
  return { shard: row.shard, cycle: Number(row.cycle), takenAt: Number(row.taken_at), body };
}

/** Deletes the shard's row if it is still `version` (Store.retireReadModel). */
export async function retireReadModel(pool: pg.Pool, version: ReadModelVersion): Promise<boolean> {
  const rows = await queryRows<{ shard: string }>(
    pool,
    "DELETE FROM read_models WHERE shard = $1 AND cycle = $2 AND taken_at = $3 RETURNING shard",
    [version.shard, version.cycle, version.takenAt],
  );
  return rows.length > 0;
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
