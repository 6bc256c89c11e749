import Database from "better-sqlite3";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "@/lib/store";
import { migrations } from "@/lib/store/migrations";

// Every Store method is covered by the shared contract (sqlite-contract.test.ts); this file holds what is SQLite's own.
let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-store-"));
  file = path.join(dir, "nested", "gapwatch.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("SQLite migrations", () => {
  it("creates the database file's folder and applies each migration once across re-opens, keeping the data", async () => {
    const first = createSqliteStore(file);
    await first.setValue("cluster-id", "abc");
    await first.close();

    const second = createSqliteStore(file);
    expect(await second.getValue("cluster-id")).toBe("abc");
    await second.close();

    const db = new Database(file, { readonly: true });
    try {
      const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[];
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    } finally {
      db.close();
    }
  });

  it("fills the topic rollup (migration 3) from the partition minutes a database of migration 2 holds", async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 2)) old.exec(m.sql);
    old.exec("INSERT INTO schema_migrations VALUES (1, 0), (2, 0)");
    const minute = old.prepare("INSERT INTO partition_minutes (flow, topic, partition, minute, lag) VALUES (?, ?, ?, ?, ?)");
    minute.run("east->west", "orders", 0, 60_000, "5");
    minute.run("east->west", "orders", 1, 60_000, "7");
    minute.run("east->west", "orders", 2, 60_000, null);
    minute.run("east->west", "payments", 0, 60_000, null);
    minute.run("east->west", "orders", 0, 120_000, "1");
    old.close();

    const store = createSqliteStore(file);
    expect(await store.readTopicLagSeries("east->west", 0, 180_000)).toEqual([
      { topic: "orders", at: 60_000, lag: 12 },
      { topic: "orders", at: 120_000, lag: 1 },
      { topic: "payments", at: 60_000, lag: 0 },
    ]);
    await store.close();
  });
});
