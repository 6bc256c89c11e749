import { all, insertRows, run, type Work } from "./engine/steps";
import type { StoredAlert, StoredEvent } from "./types";

/** Upserts alert records by id (the last of an id wins); the full record is kept as JSON (bigints already strings). */
export function* saveAlerts(alerts: readonly StoredAlert[]): Work<void> {
  const rows = new Map(alerts.map((a) => [a.id, [a.id, a.key, a.type, a.severity, a.state, JSON.stringify(a), a.firstSeen, a.lastSeen]]));
  yield* insertRows({
    table: "alerts",
    columns: [
      { name: "id", type: "text" },
      { name: "key", type: "text" },
      { name: "type", type: "text" },
      { name: "severity", type: "text" },
      { name: "state", type: "text" },
      { name: "record", type: "text" },
      { name: "first_seen", type: "bigint" },
      { name: "last_seen", type: "bigint" },
    ],
    rows: [...rows.values()],
    conflict: { target: ["id"], update: ["severity", "state", "record", "last_seen"] },
  });
}

/** Newest first (ties: by id). */
export function* loadAlerts<T extends StoredAlert>(filter: { state?: string; type?: string; flow?: string } = {}): Work<T[]> {
  const [state, type] = [filter.state ?? null, filter.type ?? null];
  const rows = yield* all<{ record: string }>(
    `SELECT record FROM alerts WHERE (CAST(? AS TEXT) IS NULL OR state = ?) AND (CAST(? AS TEXT) IS NULL OR type = ?)
     ORDER BY last_seen DESC, id`,
    [state, state, type, type],
  );
  const alerts = rows.map((r) => JSON.parse(r.record) as T & { flow?: string | null });
  return filter.flow ? alerts.filter((a) => a.flow === filter.flow) : alerts;
}

export function* appendEvent(e: Omit<StoredEvent, "id">): Work<void> {
  yield* run("INSERT INTO events (at, kind, flow, cluster, message, data) VALUES (?, ?, ?, ?, ?, ?)", [
    e.at, e.kind, e.flow, e.cluster, e.message, e.data === undefined ? null : JSON.stringify(e.data),
  ]);
}

/** Newest first (ties: the later appended first). */
export function* listEvents(from: number, to: number, limit: number): Work<StoredEvent[]> {
  const rows = yield* all<Omit<StoredEvent, "id" | "at" | "data"> & { id: string | number; at: string | number; data: string | null }>(
    "SELECT id, at, kind, flow, cluster, message, data FROM events WHERE at >= ? AND at <= ? ORDER BY at DESC, id DESC LIMIT ?",
    [from, to, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), at: Number(r.at), data: r.data === null ? null : (JSON.parse(r.data) as unknown) }));
}

export function* getValue(name: string): Work<string | null> {
  const [row] = yield* all<{ value: string }>("SELECT value FROM kv WHERE name = ?", [name]);
  return row?.value ?? null;
}

export function* setValue(name: string, value: string): Work<void> {
  yield* run("INSERT INTO kv (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", [name, value]);
}
