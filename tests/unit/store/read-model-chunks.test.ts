import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "@/lib/store";
import { migrations } from "@/lib/store/migrations";
import { readModelChunkBytes } from "@/lib/store/read-models";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-read-model-chunks-"));
  file = path.join(dir, "gapwatch.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The shard's chunks as stored: their sequence numbers and lengths, in order. */
function listChunks(shard: string): { seq: number; length: number }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT seq, length(bytes) AS length FROM read_model_chunks WHERE shard = ? ORDER BY seq")
      .all(shard) as { seq: number; length: number }[];
  } finally {
    db.close();
  }
}

describe("a published read model's body in chunks (SQLite, migration 12)", () => {
  it("splits a body into chunks of readModelChunkBytes, reads it back whole, and drops the chunks a shorter one leaves", async () => {
    const store = createSqliteStore(file);
    const long = randomBytes(3 * readModelChunkBytes + 12_345);
    await store.publishReadModel({ shard: "all", cycle: 1, takenAt: 1000, body: long });
    await store.publishReadModel({ shard: "other", cycle: 7, takenAt: 900, body: Buffer.from("other shard") });
    const read = await store.readReadModel("all");
    expect([read?.cycle, read?.takenAt, read?.body.equals(long)]).toEqual([1, 1000, true]);
    // A Buffer of its own: the columnar decoder reads typed arrays from it without copying.
    expect([read?.body.byteOffset, read?.body.buffer.byteLength]).toEqual([0, long.length]);
    expect(listChunks("all")).toEqual([
      { seq: 0, length: readModelChunkBytes }, { seq: 1, length: readModelChunkBytes },
      { seq: 2, length: readModelChunkBytes }, { seq: 3, length: 12_345 },
    ]);

    const short = randomBytes(readModelChunkBytes + 1);
    await store.publishReadModel({ shard: "all", cycle: 2, takenAt: 2000, body: short });
    expect(listChunks("all")).toEqual([{ seq: 0, length: readModelChunkBytes }, { seq: 1, length: 1 }]);
    expect((await store.readReadModel("all"))?.body.equals(short)).toBe(true);
    expect(await store.readReadModel("other")).toEqual({ shard: "other", cycle: 7, takenAt: 900, body: Buffer.from("other shard") });

    await store.publishReadModel({ shard: "all", cycle: 3, takenAt: 3000, body: Buffer.alloc(0) });
    expect([listChunks("all"), (await store.readReadModel("all"))?.body.length]).toEqual([[], 0]);
    expect(await store.listReadModelVersions()).toEqual([
      { shard: "all", cycle: 3, takenAt: 3000 }, { shard: "other", cycle: 7, takenAt: 900 },
    ]);
    await store.close();
  });

  it("moves a body of the previous version (one BLOB column) into the chunks in the migration", async () => {
    const old = new Database(file);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of migrations.filter((x) => x.version <= 11)) {
      old.exec(m.sql);
      old.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(m.version);
    }
    const body = randomBytes(2 * readModelChunkBytes + 5);
    old.prepare("INSERT INTO read_models (shard, cycle, taken_at, body) VALUES ('s1', 5, 700, ?)").run(body);
    old.close();

    const store = createSqliteStore(file);
    const read = await store.readReadModel("s1");
    expect([read?.shard, read?.cycle, read?.takenAt, read?.body.equals(body)]).toEqual(["s1", 5, 700, true]);
    // The next publish overwrites the one chunk the migration made and adds the others.
    await store.publishReadModel({ shard: "s1", cycle: 6, takenAt: 800, body });
    expect(listChunks("s1").map((c) => c.length)).toEqual([readModelChunkBytes, readModelChunkBytes, 5]);
    expect((await store.readReadModel("s1"))?.body.equals(body)).toBe(true);
    await store.close();
  });
});
