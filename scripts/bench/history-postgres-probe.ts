// The PostgreSQL side of the history-size bench (history-size.ts): the real PostgreSQL store on a throwaway server
// (lib/sandbox/postgres.ts, stopped by PID at the end and on SIGINT/SIGTERM), the counters the run reads between
// cycles, and the sizes from PostgreSQL at the end: pg_total_relation_size per table (indexes and TOAST included).
import pg from "pg";
import { createPostgresStore } from "@/lib/store";
import { startPostgres } from "@/lib/sandbox/postgres";
import type { HistoryProbe, HistorySizes, VacuumMode } from "./history-probe";

/** The tables a prune deletes from or rewrites: the ones VACUUM matters for. */
const prunedTables = ["partition_packs", "partition_staged", "topic_hours"];

export async function openPostgresProbe(
  tables: readonly string[],
  compactedHours: number,
  hourMs: number,
  vacuum: VacuumMode,
): Promise<HistoryProbe> {
  const starting = startPostgres();
  const interrupt = () => void starting.then((s) => s.stop()).finally(() => process.exit(130));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  const server = await starting;
  const store = createPostgresStore(server.url);
  // Creates the schema before the counter reads it.
  await store.getValue("history-size");
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  let closed = false;
  const closeStore = async () => {
    if (!closed) await store.close();
    closed = true;
  };
  const count = async (sql: string, values: unknown[]) =>
    Number((await client.query<{ n: string }>(sql, values)).rows[0]!.n);
  return {
    store,
    async afterPrune() {
      if (vacuum === "after-prune") await client.query(`VACUUM ${prunedTables.join(", ")}`);
    },
    listStagedBlobs: async (at) =>
      (await client.query<{ data: Buffer }>("SELECT data FROM partition_staged WHERE at = $1", [at])).rows.map((r) => r.data),
    countRawPacks: (bucket) =>
      count("SELECT COUNT(*) AS n FROM partition_packs WHERE tier = 0 AND bucket = $1", [bucket]),
    async measure(): Promise<HistorySizes> {
      await closeStore();
      // One query at a time: the client is one connection.
      const sizes: HistorySizes["tables"] = [];
      for (const name of tables) {
        const rows = await count(`SELECT COUNT(*) AS n FROM ${name}`, []);
        sizes.push({ name, rows, bytes: await count("SELECT pg_total_relation_size($1) AS n", [name]) });
      }
      const parts = await client.query<{ name: string; bytes: string }>(
        `SELECT 'partition_packs' AS name, pg_relation_size('partition_packs') AS bytes
         UNION ALL SELECT 'partition_packs TOAST', pg_total_relation_size(reltoastrelid) FROM pg_class
           WHERE relname = 'partition_packs' AND reltoastrelid <> 0
         UNION ALL SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index
           WHERE indrelid = 'partition_packs'::regclass`,
      );
      const packRows = (await client.query<{ tier: number; data: Buffer }>("SELECT tier, data FROM partition_packs"))
        .rows;
      const stats = await client.query<{ name: string; autovacuums: string; vacuums: string; dead: string }>(
        `SELECT relname AS name, autovacuum_count AS autovacuums, vacuum_count AS vacuums, n_dead_tup AS dead
         FROM pg_stat_user_tables WHERE relname = ANY($1) ORDER BY relname`,
        [prunedTables],
      );
      // A topic hour row as compacted after 24 h (its largest lag alone), measured on a scratch copy of each topic's
      // rows repeated for the compacted hours of 7 days (a few rows would measure page slack, not rows).
      await client.query(
        `CREATE TABLE scratch_topic_hours (LIKE topic_hours INCLUDING ALL);
         INSERT INTO scratch_topic_hours
           SELECT flow, topic, hour - i * ${hourMs}, ARRAY[0::smallint], ARRAY[(SELECT MAX(l) FROM unnest(lags) AS l)]
           FROM topic_hours, generate_series(1, ${compactedHours}) AS i ON CONFLICT DO NOTHING`,
      );
      const scratchBytes = await count("SELECT pg_total_relation_size('scratch_topic_hours') AS n", []);
      const scratchRows = await count("SELECT COUNT(*) AS n FROM scratch_topic_hours", []);
      await client.query("DROP TABLE scratch_topic_hours");
      return {
        tables: sizes,
        packParts: parts.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) })),
        packRows,
        compactedTopicRow: scratchBytes / Math.max(1, scratchRows),
        fileBytes: await count("SELECT pg_database_size(current_database()) AS n", []),
        vacuum: {
          mode: vacuum,
          tables: stats.rows.map((r) => ({
            name: r.name, autovacuums: Number(r.autovacuums), vacuums: Number(r.vacuums), deadTuples: Number(r.dead),
          })),
        },
      };
    },
    async dispose() {
      await closeStore().catch(() => undefined);
      await client.end().catch(() => undefined);
      process.off("SIGINT", interrupt);
      process.off("SIGTERM", interrupt);
      await server.stop();
    },
  };
}
