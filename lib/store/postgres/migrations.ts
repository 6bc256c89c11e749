import type pg from "pg";
import { getLogger } from "@/lib/logger";

/**
 * Numbered schema migrations of the PostgreSQL store, the same tables as SQLite's (lib/store/migrations.ts).
 * Offsets are `bigint` (Kafka's int64, exact; pg returns them as strings for BigInt), times `bigint` epoch ms.
 */
const migrations: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE partition_samples (
        flow text NOT NULL, topic text NOT NULL, partition integer NOT NULL, at bigint NOT NULL,
        source_log_start bigint, source_log_end bigint, mm2_position bigint, target_log_end bigint, lag bigint,
        PRIMARY KEY (flow, topic, partition, at)
      );
      CREATE INDEX partition_samples_at ON partition_samples (at);
      CREATE TABLE partition_minutes (
        flow text NOT NULL, topic text NOT NULL, partition integer NOT NULL, minute bigint NOT NULL,
        source_log_start bigint, source_log_end bigint, mm2_position bigint, target_log_end bigint, lag bigint,
        PRIMARY KEY (flow, topic, partition, minute)
      );
      CREATE INDEX partition_minutes_minute ON partition_minutes (minute);
      CREATE TABLE offset_syncs (
        id bigserial PRIMARY KEY, flow text NOT NULL, topic text NOT NULL, partition integer NOT NULL,
        upstream bigint NOT NULL, downstream bigint NOT NULL, seen_at bigint NOT NULL
      );
      CREATE INDEX offset_syncs_partition ON offset_syncs (flow, topic, partition, id);
      CREATE TABLE checkpoints (
        id bigserial PRIMARY KEY, flow text NOT NULL, group_id text NOT NULL, topic text NOT NULL, partition integer NOT NULL,
        upstream bigint NOT NULL, downstream bigint NOT NULL, seen_at bigint NOT NULL
      );
      CREATE INDEX checkpoints_group ON checkpoints (flow, group_id, topic, partition, id);
      CREATE INDEX checkpoints_seen_at ON checkpoints (seen_at);
      CREATE TABLE events (
        id bigserial PRIMARY KEY, at bigint NOT NULL, kind text NOT NULL, flow text, cluster text, message text NOT NULL, data text
      );
      CREATE INDEX events_at ON events (at, id);
      CREATE TABLE alerts (
        id text PRIMARY KEY, key text NOT NULL UNIQUE, type text NOT NULL, severity text NOT NULL, state text NOT NULL,
        record text NOT NULL, first_seen bigint NOT NULL, last_seen bigint NOT NULL
      );
      CREATE INDEX alerts_state ON alerts (state, last_seen);
      CREATE TABLE kv (name text PRIMARY KEY, value text NOT NULL);
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE translation_samples (
        flow text NOT NULL, group_id text NOT NULL, topic text NOT NULL, partition integer NOT NULL, at bigint NOT NULL,
        committed bigint NOT NULL, translated bigint, checkpoint_downstream bigint, ideal_low bigint, ideal_high bigint,
        reread bigint, failover_reread bigint, group_lag bigint,
        PRIMARY KEY (flow, group_id, topic, partition, at)
      );
      CREATE INDEX translation_samples_at ON translation_samples (at);
      CREATE TABLE translation_minutes (
        flow text NOT NULL, group_id text NOT NULL, topic text NOT NULL, partition integer NOT NULL, minute bigint NOT NULL,
        committed bigint NOT NULL, translated bigint, checkpoint_downstream bigint, ideal_low bigint, ideal_high bigint,
        reread bigint, failover_reread bigint, group_lag bigint,
        PRIMARY KEY (flow, group_id, topic, partition, minute)
      );
      CREATE INDEX translation_minutes_minute ON translation_minutes (minute);
    `,
  },
  {
    // Per-topic lag per minute (series.ts), filled from the partition minutes already stored; numeric: a sum of
    // int64 lags may exceed int64.
    version: 3,
    sql: `
      CREATE TABLE topic_minutes (
        flow text NOT NULL, topic text NOT NULL, minute bigint NOT NULL, lag numeric NOT NULL,
        PRIMARY KEY (flow, minute, topic)
      );
      CREATE INDEX topic_minutes_minute ON topic_minutes (minute);
      INSERT INTO topic_minutes (flow, topic, minute, lag)
        SELECT flow, topic, minute, COALESCE(SUM(lag), 0) FROM partition_minutes GROUP BY flow, topic, minute;
    `,
  },
];

/** Any fixed key: several Gapwatch processes starting at once apply the migrations one after another. */
const migrationLockKey = 7_120_412;

/** Applies pending migrations, each once, in order, in one transaction under an advisory lock (idempotent). */
export async function applyMigrations(client: pg.PoolClient): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey]);
  await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
  const applied = new Set((await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    await client.query(m.sql);
    await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [m.version, Date.now()]);
    getLogger("store").info({ version: m.version }, "applied PostgreSQL schema migration");
  }
}
