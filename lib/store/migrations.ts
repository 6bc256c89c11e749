/**
 * Numbered schema migrations; each runs once, in order, inside a transaction. Offsets are stored
 * as decimal TEXT (int64 never passes through a JS number), times as INTEGER epoch milliseconds.
 *
 * Sizes: `partition_samples` keeps one row per flow partition per cycle for the last hour (360
 * rows per partition at the default 10 s poll); `partition_minutes` one row per partition per
 * minute for 7 days (10,080 rows per partition). `offset_syncs` keeps up to 20,000 syncs per
 * partition (see syncs.ts); `events` 30 days. `topic_minutes` (migration 3) one row per flow topic per minute for
 * 7 days: the sparklines read it instead of summing every partition's minute rows.
 */
export const migrations: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE partition_samples (
        flow TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, at INTEGER NOT NULL,
        source_log_start TEXT, source_log_end TEXT, mm2_position TEXT, target_log_end TEXT, lag TEXT,
        PRIMARY KEY (flow, topic, partition, at)
      ) WITHOUT ROWID;
      CREATE INDEX partition_samples_at ON partition_samples (at);
      CREATE TABLE partition_minutes (
        flow TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, minute INTEGER NOT NULL,
        source_log_start TEXT, source_log_end TEXT, mm2_position TEXT, target_log_end TEXT, lag TEXT,
        PRIMARY KEY (flow, topic, partition, minute)
      ) WITHOUT ROWID;
      CREATE INDEX partition_minutes_minute ON partition_minutes (minute);
      CREATE TABLE offset_syncs (
        id INTEGER PRIMARY KEY, flow TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
        upstream TEXT NOT NULL, downstream TEXT NOT NULL, seen_at INTEGER NOT NULL
      );
      CREATE INDEX offset_syncs_partition ON offset_syncs (flow, topic, partition, id);
      CREATE TABLE checkpoints (
        id INTEGER PRIMARY KEY, flow TEXT NOT NULL, group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
        upstream TEXT NOT NULL, downstream TEXT NOT NULL, seen_at INTEGER NOT NULL
      );
      CREATE INDEX checkpoints_group ON checkpoints (flow, group_id, topic, partition, id);
      CREATE TABLE events (
        id INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind TEXT NOT NULL, flow TEXT, cluster TEXT, message TEXT NOT NULL, data TEXT
      );
      CREATE INDEX events_at ON events (at);
      CREATE TABLE alerts (
        id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE, type TEXT NOT NULL, severity TEXT NOT NULL, state TEXT NOT NULL,
        record TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL
      );
      CREATE INDEX alerts_state ON alerts (state, last_seen);
      CREATE TABLE kv (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    // Offset-translation series (lib/translation): per group × partition per cycle for the last
    // hour, and the last sample of each minute for 7 days (translation-series.ts).
    version: 2,
    sql: `
      CREATE TABLE translation_samples (
        flow TEXT NOT NULL, group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, at INTEGER NOT NULL,
        committed TEXT NOT NULL, translated TEXT, checkpoint_downstream TEXT, ideal_low TEXT, ideal_high TEXT,
        reread TEXT, failover_reread TEXT, group_lag TEXT,
        PRIMARY KEY (flow, group_id, topic, partition, at)
      ) WITHOUT ROWID;
      CREATE INDEX translation_samples_at ON translation_samples (at);
      CREATE TABLE translation_minutes (
        flow TEXT NOT NULL, group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, minute INTEGER NOT NULL,
        committed TEXT NOT NULL, translated TEXT, checkpoint_downstream TEXT, ideal_low TEXT, ideal_high TEXT,
        reread TEXT, failover_reread TEXT, group_lag TEXT,
        PRIMARY KEY (flow, group_id, topic, partition, minute)
      ) WITHOUT ROWID;
      CREATE INDEX translation_minutes_minute ON translation_minutes (minute);
    `,
  },
  {
    // Per-topic lag per minute (series.ts), filled from the partition minutes already stored. TOTAL, not SUM:
    // a float never overflows, so an absurd stored lag cannot stop the store from opening.
    version: 3,
    sql: `
      CREATE TABLE topic_minutes (
        flow TEXT NOT NULL, topic TEXT NOT NULL, minute INTEGER NOT NULL, lag INTEGER NOT NULL,
        PRIMARY KEY (flow, minute, topic)
      ) WITHOUT ROWID;
      CREATE INDEX topic_minutes_minute ON topic_minutes (minute);
      INSERT INTO topic_minutes (flow, topic, minute, lag)
        SELECT flow, topic, minute, TOTAL(CAST(lag AS INTEGER)) FROM partition_minutes GROUP BY flow, topic, minute;
    `,
  },
];
