import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPostgresStore } from "@/lib/store";
import { stripUrlUserInfo } from "@/lib/logger/redact";
import { createPool, describeDatabaseUrl, inTransaction } from "@/lib/store/postgres/connection";
import { describeStoreContract, expectedSample, sampleAt } from "./contract";

const serverUrl = inject("postgresUrl");
let admin: pg.Client;
let cases = 0;

/** The URL of a database on the test server (the server's URL with another path). */
const databaseUrl = (name: string) => serverUrl.replace(/\/postgres$/, `/${name}`);

beforeAll(async () => {
  admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
});

afterAll(async () => {
  await admin.end();
});

/** The Store contract against a real PostgreSQL server: a new database per case, dropped after it. */
describe("PostgreSQL store contract", () => {
  let name = "";
  describeStoreContract({
    fresh: async () => {
      name = `contract_${++cases}`;
      await admin.query(`CREATE DATABASE ${name}`);
    },
    open: () => createPostgresStore(databaseUrl(name)),
    cleanup: async () => {
      await admin.query(`DROP DATABASE ${name}`);
    },
  });
});

describe("PostgreSQL store", () => {
  it("applies each numbered migration once, also when two processes open the same database at once", async () => {
    await admin.query("CREATE DATABASE migrations_twice");
    const [a, b] = [createPostgresStore(databaseUrl("migrations_twice")), createPostgresStore(databaseUrl("migrations_twice"))];
    await Promise.all([a.setValue("x", "1"), b.setValue("y", "2")]);
    await Promise.all([a.close(), b.close()]);
    const again = createPostgresStore(databaseUrl("migrations_twice"));
    expect([await again.getValue("x"), await again.getValue("y")]).toEqual(["1", "2"]);
    await again.close();
    const client = new pg.Client({ connectionString: databaseUrl("migrations_twice") });
    await client.connect();
    const versions = await client.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    const types = await client.query<{ data_type: string }>(
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'partition_packs' AND column_name IN ('bucket', 'data') ORDER BY column_name",
    );
    await client.end();
    expect(versions.rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(types.rows).toEqual([{ data_type: "bigint" }, { data_type: "bytea" }]);
  });

  it("re-keys the pack tables of a migration-10 database (migration 11), keeping its packs, packing after it", async () => {
    const t0 = Date.UTC(2025, 0, 15, 3, 0, 0);
    const minute = 60_000;
    await admin.query("CREATE DATABASE packs_rekey");
    const first = createPostgresStore(databaseUrl("packs_rekey"));
    await sampleAt(first, t0 + 10_000, 100n);
    await sampleAt(first, t0 + 4 * minute, 130n);
    await sampleAt(first, t0 + 5 * minute + 10_000, 200n);
    // Packs the first two buckets (raw) and rolls them into the hour's 5-minute pack.
    await first.prune(t0 + 62 * minute);
    const before = await first.readPartitionHistory("east->west", "orders", 0, t0, t0 + 10 * minute);
    await first.close();
    // The raw samples since the window's start (prune time − 1 h), packed; the 10 s one is past it.
    expect(before).toEqual([expectedSample(t0 + 4 * minute, 130n), expectedSample(t0 + 5 * minute + 10_000, 200n)]);
    const client = new pg.Client({ connectionString: databaseUrl("packs_rekey") });
    await client.connect();
    // Back to migration 10's keys, the packs kept.
    for (const table of ["partition_packs", "translation_packs"]) {
      await client.query(
        `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey; DROP INDEX ${table}_age;
         ALTER TABLE ${table} ADD PRIMARY KEY (tier, bucket, series);
         CREATE INDEX ${table}_series ON ${table} (series, tier, bucket);
         ALTER TABLE ${table} RESET (autovacuum_vacuum_scale_factor)`,
      );
    }
    await client.query("DELETE FROM schema_migrations WHERE version = 11");
    const packs = await client.query<{ tier: number; n: string }>(
      "SELECT tier, COUNT(*) AS n FROM partition_packs GROUP BY tier ORDER BY tier",
    );
    expect(packs.rows).toEqual([{ tier: 0, n: "2" }, { tier: 1, n: "1" }]);
    const store = createPostgresStore(databaseUrl("packs_rekey"));
    expect(await store.readPartitionHistory("east->west", "orders", 0, t0, t0 + 10 * minute)).toEqual(before);
    // Packing after the upgrade (INSERT … ON CONFLICT infers the new key).
    await sampleAt(store, t0 + 63 * minute, 300n);
    await store.prune(t0 + 69 * minute);
    expect(await store.readPartitionHistory("east->west", "orders", 0, t0 + 60 * minute, t0 + 66 * minute)).toEqual([
      expectedSample(t0 + 60 * minute, 200n),
      expectedSample(t0 + 63 * minute, 300n),
    ]);
    await store.close();
    const indexes = await client.query<{ def: string }>(
      "SELECT indexdef AS def FROM pg_indexes WHERE tablename IN ('partition_packs', 'translation_packs') ORDER BY indexname",
    );
    const options = await client.query<{ options: string[] }>(
      "SELECT reloptions AS options FROM pg_class WHERE relname = 'partition_packs'",
    );
    await client.end();
    expect(indexes.rows.map((r) => r.def)).toEqual([
      "CREATE INDEX partition_packs_age ON public.partition_packs USING btree (tier, bucket)",
      "CREATE UNIQUE INDEX partition_packs_pkey ON public.partition_packs USING btree (series, tier, bucket)",
      "CREATE INDEX translation_packs_age ON public.translation_packs USING btree (tier, bucket)",
      "CREATE UNIQUE INDEX translation_packs_pkey ON public.translation_packs USING btree (series, tier, bucket)",
    ]);
    expect(options.rows).toEqual([{ options: ["autovacuum_vacuum_scale_factor=0.02"] }]);
  });

  it("lets a web instance keep the staged blobs it read (rows never change) and follow the packs that replace them", async () => {
    const t0 = Date.UTC(2025, 0, 15, 3, 0, 0);
    const minute = 60_000;
    await admin.query("CREATE DATABASE staged_reader");
    const [collector, web] = [createPostgresStore(databaseUrl("staged_reader")), createPostgresStore(databaseUrl("staged_reader"))];
    await sampleAt(collector, t0 + 10_000, 100n);
    await sampleAt(collector, t0 + 20_000, 110n);
    const staged = [expectedSample(t0 + 10_000, 100n), expectedSample(t0 + 20_000, 110n)];
    expect(await web.readPartitionHistory("east->west", "orders", 0, t0, t0 + 4 * minute)).toEqual(staged);
    // The rows' data emptied behind the readers' backs (an empty cycle blob): the web instance answers from what it
    // read, a reader that never read them finds no sample in them.
    const client = new pg.Client({ connectionString: databaseUrl("staged_reader") });
    await client.connect();
    const saved = await client.query<{ id: string; data: Buffer }>("SELECT id, data FROM partition_staged ORDER BY id");
    await client.query("UPDATE partition_staged SET data = '\\x00000000'::bytea");
    const fresh = createPostgresStore(databaseUrl("staged_reader"));
    expect(await web.readPartitionHistory("east->west", "orders", 0, t0, t0 + 4 * minute)).toEqual(staged);
    expect(await fresh.readPartitionHistory("east->west", "orders", 0, t0, t0 + 4 * minute)).toEqual([]);
    for (const row of saved.rows) await client.query("UPDATE partition_staged SET data = $2 WHERE id = $1", [row.id, row.data]);
    await client.end();
    // The collector packs the closed bucket (its staged rows deleted) and stages new cycles: both readers follow.
    await sampleAt(collector, t0 + 5 * minute + 10_000, 200n);
    await sampleAt(collector, t0 + 10 * minute + 10_000, 300n);
    const all = [...staged, expectedSample(t0 + 5 * minute + 10_000, 200n), expectedSample(t0 + 10 * minute + 10_000, 300n)];
    expect(await web.readPartitionHistory("east->west", "orders", 0, t0, t0 + 11 * minute)).toEqual(all);
    expect(await fresh.readPartitionHistory("east->west", "orders", 0, t0, t0 + 11 * minute)).toEqual(all);
    await Promise.all([collector.close(), web.close(), fresh.close()]);
  });

  it("gives two collectors that create the same series one id: the second reads back the id the first created", async () => {
    const t0 = Date.UTC(2025, 0, 15, 3, 0, 0);
    await admin.query("CREATE DATABASE raced_series");
    const [first, second] = [createPostgresStore(databaseUrl("raced_series")), createPostgresStore(databaseUrl("raced_series"))];
    // The second knows the series of its first write only; the first then creates partition 1's series.
    await sampleAt(second, t0, 500n, 5);
    await sampleAt(first, t0 + 10_000, 100n, 1);
    await sampleAt(second, t0 + 20_000, 200n, 1);
    const reader = createPostgresStore(databaseUrl("raced_series"));
    expect(await reader.readPartitionHistory("east->west", "orders", 1, t0, t0 + 60_000)).toEqual([
      expectedSample(t0 + 10_000, 100n),
      expectedSample(t0 + 20_000, 200n),
    ]);
    const client = new pg.Client({ connectionString: databaseUrl("raced_series") });
    await client.connect();
    const series = await client.query<{ partition: number }>("SELECT partition FROM partition_series ORDER BY partition");
    await client.end();
    expect(series.rows.map((r) => r.partition)).toEqual([1, 5]);
    await Promise.all([first.close(), second.close(), reader.close()]);
  });

  it("publishes read models gzip-compressed (migration 12) and still reads a text body of an older version as bytes", async () => {
    await admin.query("CREATE DATABASE packed_models");
    const store = createPostgresStore(databaseUrl("packed_models"));
    // A repetitive 2,000,000-character body, as a model is (names and offsets over and over).
    const body = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `{"topic":"orders-${i % 50}","lag":"\u0001${i * 7}"}`).join(",").padEnd(2_000_000, " "));
    await store.publishReadModel({ shard: "s1", cycle: 7, takenAt: 1_000, body });
    const client = new pg.Client({ connectionString: databaseUrl("packed_models") });
    await client.connect();
    const stored = await client.query<{ text: string | null; packed: number; storage: string }>(
      `SELECT body AS text, octet_length(packed) AS packed, (SELECT attstorage FROM pg_attribute
         WHERE attrelid = 'read_models'::regclass AND attname = 'packed') AS storage FROM read_models`,
    );
    expect(stored.rows[0]!.text).toBeNull();
    expect(stored.rows[0]!.packed).toBeLessThan(body.length / 20);
    expect(stored.rows[0]!.storage).toBe("e");
    expect(await store.readReadModel("s1")).toEqual({ shard: "s1", cycle: 7, takenAt: 1_000, body });
    // A row as a version before migration 12 wrote it: read as its UTF-8 bytes until its collector publishes again.
    await client.query("INSERT INTO read_models (shard, cycle, taken_at, body) VALUES ('s2', 3, 500, 'old text ✓')");
    expect(await store.readReadModel("s2")).toEqual({ shard: "s2", cycle: 3, takenAt: 500, body: Buffer.from("old text ✓") });
    await store.publishReadModel({ shard: "s2", cycle: 4, takenAt: 600, body: Buffer.from([0, 255, 10, 128]) });
    const replaced = await client.query<{ body: string | null }>("SELECT body FROM read_models WHERE shard = 's2'");
    expect(replaced.rows).toEqual([{ body: null }]);
    expect(await store.readReadModel("s2")).toEqual({ shard: "s2", cycle: 4, takenAt: 600, body: Buffer.from([0, 255, 10, 128]) });
    // A collector of the previous version taking the shard over (a rolling upgrade) replaces only the text body.
    await client.query("UPDATE read_models SET cycle = 5, taken_at = 700, body = 'older collector' WHERE shard = 's2'");
    await client.end();
    expect(await store.readReadModel("s2")).toEqual({ shard: "s2", cycle: 5, takenAt: 700, body: Buffer.from("older collector") });
    await store.close();
  });

  it("rejects a write whose connection is terminated mid-transaction, without an unhandled error, and writes again", async () => {
    await admin.query("CREATE DATABASE terminated_mid_write");
    const pool = createPool(databaseUrl("terminated_mid_write"));
    const failure = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      // What a server restart or a DBA's pg_terminate_backend does to the connection in the middle of a cycle's write.
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      await client.query("SELECT 1");
    }).then(
      () => null,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    // Which message the write gets depends on whether the server's FATAL reached the client before the next query
    // (then pg refuses to query a client that had its 'error' event) or answers it: either way it is rejected.
    expect(failure).toMatch(
      /^PostgreSQL: (terminating connection due to administrator command \(57P01\)|Client has encountered a connection error and is not queryable)$/,
    );
    const again = await inTransaction(pool, async (client) => (await client.query<{ one: number }>("SELECT 1 AS one")).rows);
    expect(again).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it("never repeats a URL's password in an error or a log line", async () => {
    const port = new URL(serverUrl).port;
    const url = `postgres://gapwatch:hunter2@127.0.0.1:${port}/no_such_database`;
    const store = createPostgresStore(url);
    const failure = await store.getValue("x").then(() => null, (err: unknown) => (err instanceof Error ? err.message : String(err)));
    await store.close();
    expect(failure).toBe('PostgreSQL: database "no_such_database" does not exist (3D000)');
    expect(stripUrlUserInfo(`connect to ${url} failed`)).toBe(`connect to postgres://127.0.0.1:${port}/no_such_database failed`);
    expect(describeDatabaseUrl(`${url}?sslmode=require`)).toBe(`postgres://127.0.0.1:${port}/no_such_database`);
  });

  it("fills the topic rollup (migration 3, then hour rows: 9) from the partition minutes a database of migration 2 holds", async () => {
    await admin.query("CREATE DATABASE rollup_backfill");
    const first = createPostgresStore(databaseUrl("rollup_backfill"));
    await first.getValue("x");
    await first.close();
    // Back to the schema of migration 2 (migration 4 dropped its partition_minutes: made again as migration 1 did), with
    // partition minutes written before the rollup existed.
    const client = new pg.Client({ connectionString: databaseUrl("rollup_backfill") });
    await client.connect();
    await client.query(
      `DROP TABLE topic_hours, partition_series, translation_series, detector_memory;
       DELETE FROM schema_migrations WHERE version IN (3, 4, 9);
       CREATE TABLE partition_minutes (
         flow text NOT NULL, topic text NOT NULL, partition integer NOT NULL, minute bigint NOT NULL,
         source_log_start bigint, source_log_end bigint, mm2_position bigint, target_log_end bigint, lag bigint,
         PRIMARY KEY (flow, topic, partition, minute))`,
    );
    await client.query(
      `INSERT INTO partition_minutes (flow, topic, partition, minute, lag) VALUES
         ('east->west', 'orders', 0, 60000, 5), ('east->west', 'orders', 1, 60000, 9007199254740993),
         ('east->west', 'orders', 2, 60000, NULL), ('east->west', 'payments', 0, 60000, NULL), ('east->west', 'orders', 0, 120000, 1)`,
    );
    await client.end();
    const store = createPostgresStore(databaseUrl("rollup_backfill"));
    expect(await store.readTopicLagSeries("east->west", 0, 180_000)).toEqual([
      { topic: "orders", at: 60_000, lag: 9007199254740998 },
      { topic: "orders", at: 120_000, lag: 1 },
      { topic: "payments", at: 60_000, lag: 0 },
    ]);
    await store.close();
  });
});
