import type { SqliteDb } from "./db";
import type { RevokedSession } from "./types";

export function revokeSession(db: SqliteDb, s: RevokedSession): void {
  db.prepare("INSERT INTO revoked_sessions (session_id, expires_at) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING").run(s.sessionId, s.expiresAt);
}

export function listRevokedSessions(db: SqliteDb, now: number): RevokedSession[] {
  const rows = db.prepare("SELECT session_id, expires_at FROM revoked_sessions WHERE expires_at > ?").all(now) as { session_id: string; expires_at: number }[];
  return rows.map((r) => ({ sessionId: r.session_id, expiresAt: r.expires_at }));
}

/** A revoked session's cookie is refused by its expiry anyway: the row can go. */
export function pruneRevokedSessions(db: SqliteDb, now: number): void {
  db.prepare("DELETE FROM revoked_sessions WHERE expires_at <= ?").run(now);
}
