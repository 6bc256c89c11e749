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
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-topic-hours-"));
  file = path.join(dir, "gapwatch.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("migration 9 (topic hour rows) on a database of migration 8", () => {
  it("converts the minute rows to hour rows in time order, reads the same points, and appends to the converted hour", async () => {
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 8)) {
      old.exec(m.sql);
      old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(m.version);
    }
    // An hour compacted before the upgrade (its largest lag at its start), then minute rows of two hours, out of order.
    const insert = old.prepare("INSERT INTO topic_minutes (flow, topic, minute, lag) VALUES ('east->west', 'orders', ?, ?)");
    for (const [minute, lag] of [[T0 + 5 * MINUTE, 7], [T0 - 48 * HOUR, 50], [T0 + 61 * MINUTE, 9], [T0 + 2 * MINUTE, 3]] as const) {
      insert.run(BigInt(minute), lag);
    }
    old.close();

    const store = createSqliteStore(file);
    expect(await store.readTopicLagSeries("east->west", T0 - 48 * HOUR, T0 + 2 * HOUR)).toEqual([
      { topic: "orders", at: T0 - 48 * HOUR, lag: 50 },
      { topic: "orders", at: T0 + 2 * MINUTE, lag: 3 },
      { topic: "orders", at: T0 + 5 * MINUTE, lag: 7 },
      { topic: "orders", at: T0 + 61 * MINUTE, lag: 9 },
    ]);
    // A cycle in the converted hour's last minute replaces that minute's lag.
    const partition = { topic: "orders", partition: 0, sourceLogStart: 0n, sourceLogEnd: 20n, mm2Position: 9n, targetLogEnd: 9n, lag: 11n };
    await store.recordFlowSamples([{ id: "east->west", partitions: [partition] } as unknown as Flow], T0 + 61 * MINUTE + 30_000);
    expect(await store.readTopicLagSeries("east->west", T0 + HOUR, T0 + 2 * HOUR)).toEqual([
      { topic: "orders", at: T0 + HOUR, lag: 7 },
      { topic: "orders", at: T0 + 61 * MINUTE, lag: 11 },
    ]);
    await store.close();
    const db = new Database(file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'topic_%' ORDER BY name").pluck().all();
    const rows = db.prepare("SELECT hour, data FROM topic_hours ORDER BY hour").all();
    db.close();
    expect(tables).toEqual(["topic_hours"]);
    expect(rows).toEqual([
      { hour: T0 - 48 * HOUR, data: "[[0,50]]" },
      { hour: T0, data: "[[2,3],[5,7]]" },
      { hour: T0 + HOUR, data: "[[1,11]]" },
    ]);
  });
});
