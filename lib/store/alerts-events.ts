import type { SqliteDb } from "./db";
import type { StoredAlert, StoredEvent } from "./types";

/** Upserts alert records by id; the full record is kept as JSON (bigints already strings). */
export function saveAlerts(db: SqliteDb, alerts: readonly StoredAlert[]): void {
  const upsert = db.prepare(
    `INSERT INTO alerts (id, key, type, severity, state, record, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET severity = excluded.severity, state = excluded.state, record = excluded.record, last_seen = excluded.last_seen`,
  );
  db.transaction(() => {
    for (const a of alerts) upsert.run(a.id, a.key, a.type, a.severity, a.state, JSON.stringify(a), a.firstSeen, a.lastSeen);
  })();
}

export function loadAlerts<T extends StoredAlert>(db: SqliteDb, filter: { state?: string; type?: string; flow?: string } = {}): T[] {
  const rows = db
    .prepare(`SELECT record FROM alerts WHERE (@state IS NULL OR state = @state) AND (@type IS NULL OR type = @type) ORDER BY last_seen DESC`)
    .all({ state: filter.state ?? null, type: filter.type ?? null }) as { record: string }[];
  const alerts = rows.map((r) => JSON.parse(r.record) as T & { flow?: string | null });
  return filter.flow ? alerts.filter((a) => a.flow === filter.flow) : alerts;
}

export function appendEvent(db: SqliteDb, e: Omit<StoredEvent, "id">): void {
  db.prepare("INSERT INTO events (at, kind, flow, cluster, message, data) VALUES (?, ?, ?, ?, ?, ?)").run(
    e.at, e.kind, e.flow, e.cluster, e.message, e.data === undefined ? null : JSON.stringify(e.data),
  );
}

export function listEvents(db: SqliteDb, from: number, to: number, limit: number): StoredEvent[] {
  const rows = db.prepare("SELECT id, at, kind, flow, cluster, message, data FROM events WHERE at >= ? AND at <= ? ORDER BY at DESC LIMIT ?").all(from, to, limit) as (Omit<StoredEvent, "data"> & { data: string | null })[];
  return rows.map((r) => ({ ...r, data: r.data === null ? null : (JSON.parse(r.data) as unknown) }));
}

export function getValue(db: SqliteDb, name: string): string | null {
  return (db.prepare("SELECT value FROM kv WHERE name = ?").get(name) as { value: string } | undefined)?.value ?? null;
}

export function setValue(db: SqliteDb, name: string, value: string): void {
  db.prepare("INSERT INTO kv (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value").run(name, value);
}
