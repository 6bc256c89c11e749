import type pg from "pg";
import type { StoredAlert, StoredEvent } from "../types";
import { queryRows } from "./connection";
import { rowsPerStatement, transpose } from "../engine/postgres-runner";

/** Upserts alert records by id on the caller's transaction (index.ts); the full record is kept as JSON text (bigints already strings). */
export async function writeAlerts(client: pg.PoolClient, alerts: readonly StoredAlert[]): Promise<void> {
  const rows = [...new Map(alerts.map((a) => [a.id, [a.id, a.key, a.type, a.severity, a.state, JSON.stringify(a), a.firstSeen, a.lastSeen]])).values()];
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    await client.query(
      `INSERT INTO alerts (id, key, type, severity, state, record, first_seen, last_seen)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
       ON CONFLICT (id) DO UPDATE SET severity = excluded.severity, state = excluded.state, record = excluded.record, last_seen = excluded.last_seen`,
      transpose(rows.slice(i, i + rowsPerStatement), 8),
    );
  }
}

export async function loadAlerts<T extends StoredAlert>(pool: pg.Pool, filter: { state?: string; type?: string; flow?: string } = {}): Promise<T[]> {
  const rows = await queryRows<{ record: string }>(
    pool,
    "SELECT record FROM alerts WHERE ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR type = $2) ORDER BY last_seen DESC, id",
    [filter.state ?? null, filter.type ?? null],
  );
  const alerts = rows.map((r) => JSON.parse(r.record) as T & { flow?: string | null });
  return filter.flow ? alerts.filter((a) => a.flow === filter.flow) : alerts;
}

export async function appendEvent(pool: pg.Pool, e: Omit<StoredEvent, "id">): Promise<void> {
  await queryRows(pool, "INSERT INTO events (at, kind, flow, cluster, message, data) VALUES ($1, $2, $3, $4, $5, $6)", [
    e.at, e.kind, e.flow, e.cluster, e.message, e.data === undefined ? null : JSON.stringify(e.data),
  ]);
}

/** Newest first (ties: the later appended first, as SQLite's index on `at` gives). */
export async function listEvents(pool: pg.Pool, from: number, to: number, limit: number): Promise<StoredEvent[]> {
  const rows = await queryRows<Omit<StoredEvent, "id" | "at" | "data"> & { id: string; at: string; data: string | null }>(
    pool,
    "SELECT id, at, kind, flow, cluster, message, data FROM events WHERE at >= $1 AND at <= $2 ORDER BY at DESC, id DESC LIMIT $3",
    [from, to, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), at: Number(r.at), data: r.data === null ? null : (JSON.parse(r.data) as unknown) }));
}

export async function getValue(pool: pg.Pool, name: string): Promise<string | null> {
  const [row] = await queryRows<{ value: string }>(pool, "SELECT value FROM kv WHERE name = $1", [name]);
  return row?.value ?? null;
}

export async function setValue(pool: pg.Pool, name: string, value: string): Promise<void> {
  await queryRows(pool, "INSERT INTO kv (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value", [name, value]);
}
