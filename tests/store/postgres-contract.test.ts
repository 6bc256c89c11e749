import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPostgresStore } from "@/lib/store";
import { stripUrlUserInfo } from "@/lib/logger/redact";
import { createPool, describeDatabaseUrl, inTransaction } from "@/lib/store/postgres/connection";
import { describeStoreContract } from "./contract";

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
    expect(versions.rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(types.rows).toEqual([{ data_type: "bigint" }, { data_type: "bytea" }]);
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
