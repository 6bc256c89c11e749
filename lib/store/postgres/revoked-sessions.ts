import type pg from "pg";
import type { RevokedSession } from "../types";
import { queryRows } from "./connection";

export async function revokeSession(pool: pg.Pool, s: RevokedSession): Promise<void> {
  await queryRows(pool, "INSERT INTO revoked_sessions (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING", [s.sessionId, s.expiresAt]);
}

export async function listRevokedSessions(pool: pg.Pool, now: number): Promise<RevokedSession[]> {
  const rows = await queryRows<{ session_id: string; expires_at: string }>(
    pool,
    "SELECT session_id, expires_at FROM revoked_sessions WHERE expires_at > $1",
    [now],
  );
  return rows.map((r) => ({ sessionId: r.session_id, expiresAt: Number(r.expires_at) }));
}

/** A revoked session's cookie is refused by its expiry anyway: the row can go. */
export async function pruneRevokedSessions(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM revoked_sessions WHERE expires_at <= $1", [now]);
}
