import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { PublishedReadModels } from "@/lib/pipeline/published-read-models";
import { createSqliteStore } from "@/lib/store";
import { migrations } from "@/lib/store/migrations";
import { makeColumnarSample } from "./columnar-sample";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-text-form-"));
  file = path.join(dir, "gapwatch.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** makeColumnarSample() as the previous version published it (fixtures/make-columnar-text-v1.ts). */
const previousTextForm = readFileSync(path.join(import.meta.dirname, "fixtures/columnar-text-v1.txt"), "utf8");

describe("a web instance meeting a read model row of the previous text form (migration 11)", () => {
  it("serves the text body a collector of the previous version stored, then the bytes the next publish stores", async () => {
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 10)) {
      old.exec(m.sql);
      old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(m.version);
    }
    old.prepare("INSERT INTO read_models (shard, cycle, taken_at, body) VALUES ('all', 3, ?, ?)").run(Date.now(), previousTextForm);
    old.close();

    const store = createSqliteStore(file);
    const web = new PublishedReadModels(store);
    await web.refresh();
    expect(web.latest()).toEqual(makeColumnarSample());

    const next = { ...makeColumnarSample(), snapshot: { cycle: 4, rows: [] } };
    await store.publishReadModel({ shard: "all", cycle: 4, takenAt: Date.now(), body: encodeColumnar(next) });
    await web.refresh();
    expect(web.latest()).toEqual(next);
    await store.close();
    const db = new Database(file, { readonly: true });
    // Since migration 12 the body is in chunks (lib/store/read-models.ts); the first holds the magic.
    const row = db.prepare("SELECT typeof(bytes) AS type, substr(bytes, 1, 20) AS head FROM read_model_chunks WHERE seq = 0").get();
    const column = db.prepare("SELECT type FROM pragma_table_info('read_model_chunks') WHERE name = 'bytes'").pluck().get();
    db.close();
    expect([row, column]).toEqual([{ type: "blob", head: Buffer.from("gapwatch-columnar 2\n") }, "BLOB"]);
  });

  it("converts the text body to its UTF-8 bytes in the migration", async () => {
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 10)) {
      old.exec(m.sql);
      old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(m.version);
    }
    old.prepare("INSERT INTO read_models (shard, cycle, taken_at, body) VALUES ('s1', 5, 700, 'ü ✓ text')").run();
    old.close();
    const store = createSqliteStore(file);
    expect(await store.readReadModel("s1")).toEqual({ shard: "s1", cycle: 5, takenAt: 700, body: Buffer.from("ü ✓ text") });
    expect(await store.listReadModelVersions()).toEqual([{ shard: "s1", cycle: 5, takenAt: 700 }]);
    await store.close();
  });
});
