import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { migrations } from "./migrations";

export type SqliteDb = Database.Database;

/** Opens (creating if needed) the SQLite file in WAL mode and applies pending migrations. */
export function openDatabase(file: string): SqliteDb {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  applyMigrations(db);
  return db;
}

function applyMigrations(db: SqliteDb): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version));
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(m.version, Date.now());
    })();
    getLogger("store").info({ version: m.version }, "applied schema migration");
  }
}
