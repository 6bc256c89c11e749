import { all, run, type Work } from "./engine/steps";
import type { RevokedSession } from "./types";

export function* revokeSession(s: RevokedSession): Work<void> {
  yield* run("INSERT INTO revoked_sessions (session_id, expires_at) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING", [s.sessionId, s.expiresAt]);
}

export function* listRevokedSessions(now: number): Work<RevokedSession[]> {
  const rows = yield* all<{ session_id: string; expires_at: string | number }>(
    "SELECT session_id, expires_at FROM revoked_sessions WHERE expires_at > ?",
    [now],
  );
  return rows.map((r) => ({ sessionId: r.session_id, expiresAt: Number(r.expires_at) }));
}

/** A revoked session's cookie is refused by its expiry anyway: the row can go. */
export function* pruneRevokedSessions(now: number): Work<void> {
  yield* run("DELETE FROM revoked_sessions WHERE expires_at <= ?", [now]);
}
