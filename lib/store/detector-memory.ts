import type { SqliteDb } from "./db";
import type { DetectorMemoryEntryChange } from "./types";

/** Applies one cycle's detector memory changes (lib/detect/memory-persistence.ts) in one transaction. */
export function saveDetectorMemoryEntries(db: SqliteDb, changes: readonly DetectorMemoryEntryChange[]): void {
  if (changes.length === 0) return;
  const upsert = db.prepare("INSERT OR REPLACE INTO detector_memory (key, value) VALUES (?, ?)");
  const remove = db.prepare("DELETE FROM detector_memory WHERE key = ?");
  db.transaction(() => {
    for (const c of changes) {
      if (c.value === null) remove.run(c.key);
      else upsert.run(c.key, c.value);
    }
  })();
}

/** The stored entries whose key starts with `prefix` (every entry without one), as [key, JSON value]. */
export function loadDetectorMemoryEntries(db: SqliteDb, prefix?: string): [string, string][] {
  if (prefix === undefined) return db.prepare("SELECT key, value FROM detector_memory").raw(true).all() as [string, string][];
  return db.prepare("SELECT key, value FROM detector_memory WHERE substr(key, 1, ?) = ?").raw(true).all(prefix.length, prefix) as [string, string][];
}
