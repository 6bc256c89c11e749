// The SQLite side of the history-size bench (history-size.ts): a store on a scratch file, the counters the run reads
// between cycles, and the sizes from SQLite's dbstat (table and its indexes) at the end.
import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSqliteStore } from "@/lib/store";
import type { HistoryProbe, HistorySizes } from "./history-probe";

export function openSqliteProbe(tables: readonly string[], compactedHours: number, hourMs: number): HistoryProbe {
  // On tmpfs when there is one: the run measures sizes (the same pages on any disk), not a shared disk's fsyncs.
  const dir = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "gapwatch-history-"));
  const file = path.join(dir, "history.db");
  const store = createSqliteStore(file);
  const counter = new Database(file, { readonly: true });
  const stagedAt = counter.prepare("SELECT data FROM partition_staged WHERE at = ?").pluck();
  const packsAt = counter.prepare("SELECT COUNT(*) FROM partition_packs WHERE tier = 0 AND bucket = ?").pluck();
  return {
    store,
    afterPrune: async () => undefined,
    listStagedBlobs: async (at) => stagedAt.all(at) as Buffer[],
    countRawPacks: async (bucket) => packsAt.get(bucket) as number,
    async measure(): Promise<HistorySizes> {
      await store.close();
      counter.close();
      const db = new Database(file);
      try {
        db.pragma("wal_checkpoint(TRUNCATE)");
        return measureSqlite(db, tables, compactedHours, hourMs, statSync(file).size);
      } finally {
        db.close();
      }
    },
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function measureSqlite(db: Database.Database, names: readonly string[], compactedHours: number, hourMs: number, fileBytes: number): HistorySizes {
  const bytesByName = new Map((db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[]).map((r) => [r.name, r.bytes]));
  const indexesOf = (table: string) => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").pluck().all(table) as string[]);
  const tables = names.map((name) => {
    const rows = db.prepare(`SELECT COUNT(*) FROM ${name}`).pluck().get() as number;
    const bytes = [name, ...indexesOf(name)].reduce((sum, n) => sum + (bytesByName.get(n) ?? 0), 0);
    return { name, rows, bytes };
  });
  const packParts = ["partition_packs", ...indexesOf("partition_packs")].map((name) => ({ name, bytes: bytesByName.get(name) ?? 0 }));
  const packRows = db.prepare("SELECT tier, data FROM partition_packs").all() as { tier: number; data: Buffer }[];
  // A topic hour row as compacted after 24 h (its largest lag alone), measured on a scratch copy of each topic's rows
  // repeated for the compacted hours of 7 days (a few rows would measure page slack, not rows).
  db.exec(
    `CREATE TABLE scratch_topic_hours (flow TEXT NOT NULL, topic TEXT NOT NULL, hour INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (flow, topic, hour)) WITHOUT ROWID;
     CREATE INDEX scratch_topic_hours_hour ON scratch_topic_hours (hour);
     INSERT OR IGNORE INTO scratch_topic_hours WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${compactedHours})
       SELECT flow, topic, hour - i * ${hourMs}, json_array(json_array(0, (SELECT MAX(value ->> 1) FROM json_each(data)))) FROM topic_hours, n`,
  );
  const scratchBytes = db.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'scratch_topic_hours%'").pluck().get() as number;
  const compactedTopicRow = scratchBytes / Math.max(1, db.prepare("SELECT COUNT(*) FROM scratch_topic_hours").pluck().get() as number);
  return { tables, packParts, packRows, compactedTopicRow, fileBytes, vacuum: null };
}
