import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Flow } from "@/lib/collector/types";
import { createSqliteStore } from "@/lib/store";
import { migrations } from "@/lib/store/migrations";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-upgrade-"));
  file = path.join(dir, "gapwatch.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);

describe("migration 7 (packed history) on a database of migration 6", () => {
  it("drops the unpacked partition points, keeps series ids and topic lags, and records from the upgrade on", async () => {
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 6)) {
      old.exec(m.sql);
      old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(m.version);
    }
    old.exec(`INSERT INTO partition_series (id, flow, topic, partition) VALUES (5, 'east->west', 'orders', 0)`);
    old.prepare("INSERT INTO partition_points (series, tier, at, source_log_end, lag) VALUES (5, 0, ?, 100, 10)").run(T0);
    old.prepare("INSERT INTO topic_minutes (flow, topic, minute, lag) VALUES ('east->west', 'orders', ?, 10)").run(T0);
    old.close();

    const store = createSqliteStore(file);
    expect(await store.readPartitionHistory("east->west", "orders", 0, T0, T0 + 60_000)).toEqual([]);
    expect(await store.readTopicLagSeries("east->west", T0, T0)).toEqual([{ topic: "orders", at: T0, lag: 10 }]);
    const flow = { id: "east->west", partitions: [{ topic: "orders", partition: 0, sourceLogStart: 0n, sourceLogEnd: 120n, mm2Position: 110n, targetLogEnd: 110n, lag: 10n }] };
    await store.recordFlowSamples([flow as unknown as Flow], T0 + 10_000);
    expect(await store.readPartitionHistory("east->west", "orders", 0, T0, T0 + 60_000)).toEqual([
      { at: T0 + 10_000, sourceLogStart: 0n, sourceLogEnd: 120n, mm2Position: 110n, targetLogEnd: 110n, lag: 10n },
    ]);
    await store.close();
    const db = new Database(file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'partition_%' ORDER BY name").pluck().all();
    const ids = db.prepare("SELECT DISTINCT series FROM partition_packs UNION SELECT id FROM partition_series").pluck().all();
    db.close();
    expect(tables).toEqual(["partition_packs", "partition_series", "partition_staged"]);
    // The series keeps its id (5), and no second series was made for it.
    expect(ids).toEqual([5]);
  });
});
