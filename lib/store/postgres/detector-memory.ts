import type pg from "pg";
import type { DetectorMemoryEntryChange } from "../types";
import { inTransaction, queryRows } from "./connection";
import { rowsPerStatement } from "../engine/postgres-runner";

/** Applies one cycle's detector memory changes in one transaction (as the SQLite store does). */
export async function saveDetectorMemoryEntries(pool: pg.Pool, changes: readonly DetectorMemoryEntryChange[]): Promise<void> {
  if (changes.length === 0) return;
  // The last change of a key wins (an upsert may not touch one row twice in a statement).
  const last = new Map(changes.map((c) => [c.key, c.value]));
  const upserts = [...last].filter((e): e is [string, string] => e[1] !== null);
  const deletes = [...last].filter(([, value]) => value === null).map(([key]) => key);
  await inTransaction(pool, async (client) => {
    for (let i = 0; i < deletes.length; i += rowsPerStatement) {
      await client.query("DELETE FROM detector_memory WHERE key = ANY($1::text[])", [deletes.slice(i, i + rowsPerStatement)]);
    }
    for (let i = 0; i < upserts.length; i += rowsPerStatement) {
      const chunk = upserts.slice(i, i + rowsPerStatement);
      await client.query(
        `INSERT INTO detector_memory (key, value) SELECT k, v FROM unnest($1::text[], $2::text[]) AS u(k, v)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [chunk.map(([k]) => k), chunk.map(([, v]) => v)],
      );
    }
  });
}

/** The stored entries whose key starts with `prefix` (every entry without one), as [key, JSON value]. */
export async function loadDetectorMemoryEntries(pool: pg.Pool, prefix?: string): Promise<[string, string][]> {
  // starts_with compares characters, not the collation's order (a key range would depend on the locale).
  const rows = prefix === undefined
    ? await queryRows<{ key: string; value: string }>(pool, "SELECT key, value FROM detector_memory")
    : await queryRows<{ key: string; value: string }>(pool, "SELECT key, value FROM detector_memory WHERE starts_with(key, $1)", [prefix]);
  return rows.map((r) => [r.key, r.value]);
}
