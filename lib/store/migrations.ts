/**
 * Numbered schema migrations; each runs once, in order, inside a transaction. Offsets are stored
 * as decimal TEXT (int64 never passes through a JS number), times as INTEGER epoch milliseconds; the series tables
 * of migration 4 store offsets as INTEGER (SQLite's int64, read back with safeIntegers: exact too).
 *
 * Sizes: since migration 4, `partition_points` holds a partition's rows only for cycles in which it changed:
 * raw for 1 h, 5-minute for 24 h, hourly for 7 days (at most 816 rows per partition at a 10 s poll; tiers.ts).
 * `offset_syncs` keeps up to 20,000 syncs per
 * partition (see syncs.ts); `events` 30 days. `topic_hours` (migration 9; `topic_minutes` from migration 3 to 8) a
 * flow topic's changed minutes per hour for 24 h, then its largest lag per hour for 7 days: the sparklines read it
 * instead of summing every partition's points.
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
  {
    // History that fits (tiers.ts): series get integer ids; points hold INTEGER offsets (int64, exact), written
    // only when a series changed, in three tiers (raw 1 h, 5-minute 24 h, hourly 7 d); topic_minutes gets an index
    // per topic (its rows are change-only too: the reader finds a topic's last row before a range); the detector
    // memory is stored per entry (lib/detect/memory-persistence.ts) instead of one JSON value per cycle.
    // The old raw and minute tables are DROPPED, not converted: at 10,000 partitions they hold ~100 M rows, and
    // converting them here would hold the first cycle for many minutes in one transaction; the charts fill again
    // from the upgrade on (raw at once, the coarse tiers as their buckets close). topic_minutes is kept as it is.
    version: 4,
    sql: `
      DROP TABLE IF EXISTS partition_samples;
      DROP TABLE IF EXISTS partition_minutes;
      DROP TABLE IF EXISTS translation_samples;
      DROP TABLE IF EXISTS translation_minutes;
      CREATE TABLE partition_series (
        id INTEGER PRIMARY KEY, flow TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, UNIQUE (flow, topic, partition)
      );
      CREATE TABLE partition_points (
        series INTEGER NOT NULL, tier INTEGER NOT NULL, at INTEGER NOT NULL,
        source_log_start INTEGER, source_log_end INTEGER, mm2_position INTEGER, target_log_end INTEGER, lag INTEGER,
        PRIMARY KEY (series, tier, at)
      ) WITHOUT ROWID;
      CREATE INDEX partition_points_age ON partition_points (tier, at);
      CREATE TABLE translation_series (
        id INTEGER PRIMARY KEY, flow TEXT NOT NULL, group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
        UNIQUE (flow, group_id, topic, partition)
      );
      CREATE TABLE translation_points (
        series INTEGER NOT NULL, tier INTEGER NOT NULL, at INTEGER NOT NULL,
        committed INTEGER NOT NULL, translated INTEGER, checkpoint_downstream INTEGER, ideal_low INTEGER, ideal_high INTEGER,
        reread INTEGER, failover_reread INTEGER, group_lag INTEGER,
        PRIMARY KEY (series, tier, at)
      ) WITHOUT ROWID;
      CREATE INDEX translation_points_age ON translation_points (tier, at);
      CREATE INDEX topic_minutes_topic ON topic_minutes (flow, topic, minute);
      CREATE TABLE detector_memory (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  {
    // Roles (read-models.ts): each collector shard's latest read model, one row replaced per cycle, and the
    // acknowledgements web instances queue for the collector that holds the alert.
    version: 5,
    sql: `
      CREATE TABLE read_models (shard TEXT PRIMARY KEY, cycle INTEGER NOT NULL, taken_at INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE acknowledgement_requests (alert_id TEXT PRIMARY KEY, by_user TEXT NOT NULL, at INTEGER NOT NULL);
    `,
  },
  {
    // Notification ledger (notification-outbox.ts): a transition is recorded per target before it is sent, so a
    // restart or a shard's new owner never sends it again. 30 days, as events.
    version: 6,
    sql: `
      CREATE TABLE notification_ledger (
        alert_id TEXT NOT NULL, transition TEXT NOT NULL, at INTEGER NOT NULL, target TEXT NOT NULL,
        PRIMARY KEY (alert_id, transition, at, target)
      ) WITHOUT ROWID;
      CREATE INDEX notification_ledger_at ON notification_ledger (at);
    `,
  },
  {
    // Packed history (tiers.ts, sample-pack.ts): each write's changed samples as one blob per chunk of 1,024 series
    // (`*_staged`) until their 5-minute bucket closes, then one row per series, tier and pack holding its points
    // delta-encoded (`*_packs`, keyed by tier and bucket first: each close appends, and prune cuts from the front;
    // readers find a series' packs by the index); `series_state` each table's newest write and latest prune.
    // The unpacked points of migration 4 are DROPPED, not converted: converting up to ~80 M rows would hold the first
    // cycle in one transaction for minutes; the charts fill again from the upgrade on (up to 7 days of partition and
    // translation charts lost; topic sparklines, detector memory, alerts and syncs stay).
    version: 7,
    sql: `
      DROP TABLE IF EXISTS partition_points;
      DROP TABLE IF EXISTS translation_points;
      CREATE TABLE partition_staged (id INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, at INTEGER NOT NULL, data BLOB NOT NULL);
      CREATE INDEX partition_staged_chunk ON partition_staged (chunk, id);
      CREATE TABLE partition_packs (
        series INTEGER NOT NULL, tier INTEGER NOT NULL, bucket INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (tier, bucket, series)
      ) WITHOUT ROWID;
      CREATE INDEX partition_packs_series ON partition_packs (series, tier, bucket);
      CREATE TABLE translation_staged (id INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, at INTEGER NOT NULL, data BLOB NOT NULL);
      CREATE INDEX translation_staged_chunk ON translation_staged (chunk, id);
      CREATE TABLE translation_packs (
        series INTEGER NOT NULL, tier INTEGER NOT NULL, bucket INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (tier, bucket, series)
      ) WITHOUT ROWID;
      CREATE INDEX translation_packs_series ON translation_packs (series, tier, bucket);
      CREATE TABLE series_state (points TEXT PRIMARY KEY, newest_at INTEGER, pruned_at INTEGER);
    `,
  },
  {
    // Notification outbox (notification-outbox.ts): what a cycle's transitions owe each target, written in the
    // transaction that writes the alerts and delivered from here, so a crash between the write and the send loses
    // nothing (queued again at start). Revoked sessions (revoked-sessions.ts): sign-out survives a restart.
    version: 8,
    sql: `
      CREATE TABLE notification_outbox (
        id INTEGER PRIMARY KEY, alert_id TEXT NOT NULL, transition TEXT NOT NULL, at INTEGER NOT NULL, target TEXT NOT NULL,
        queued_at INTEGER NOT NULL, payload TEXT NOT NULL, outcome TEXT, finished_at INTEGER
      );
      CREATE INDEX notification_outbox_pending ON notification_outbox (id) WHERE finished_at IS NULL;
      CREATE INDEX notification_outbox_finished ON notification_outbox (finished_at);
      CREATE TABLE revoked_sessions (session_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX revoked_sessions_expiry ON revoked_sessions (expires_at);
    `,
  },
  {
    // Topic lag per hour row (series.ts): a topic's changed minutes of an hour as one JSON array of [minute of the
    // hour, lag] instead of a row and two index entries each. The minute rows are CONVERTED in one INSERT…SELECT
    // (7 days × 18,000 topics in seconds): the sparklines carry over.
    version: 9,
    sql: `
      CREATE TABLE topic_hours (
        flow TEXT NOT NULL, topic TEXT NOT NULL, hour INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (flow, topic, hour)
      ) WITHOUT ROWID;
      CREATE INDEX topic_hours_hour ON topic_hours (hour);
      INSERT INTO topic_hours (flow, topic, hour, data)
        SELECT flow, topic, minute / 3600000 * 3600000, json_group_array(json_array(minute % 3600000 / 60000, lag) ORDER BY minute)
        FROM topic_minutes GROUP BY flow, topic, minute / 3600000;
      DROP TABLE topic_minutes;
    `,
  },
  {
    // Outbox leases (notification-outbox.ts, collectors sharing the work): the collector that queued a row keeps
    // sending it, through a rebalance too, while it renews the lease; another takes it only once the lease ran out.
    version: 10,
    sql: `
      ALTER TABLE notification_outbox ADD COLUMN lease_owner TEXT;
      ALTER TABLE notification_outbox ADD COLUMN lease_until INTEGER;
    `,
  },
  {
    // Published read models as bytes (columnar-codec.ts writes its blob as it is, no longer as base64 text): the body
    // column is a BLOB, and a text body of the previous version becomes its UTF-8 bytes, which web instances still
    // decode. SQLite cannot change a column's type in place, so the table is rebuilt (one row per shard).
    version: 11,
    sql: `
      CREATE TABLE read_models_bytes (
        shard TEXT PRIMARY KEY, cycle INTEGER NOT NULL, taken_at INTEGER NOT NULL, body BLOB NOT NULL
      );
      INSERT INTO read_models_bytes (shard, cycle, taken_at, body)
        SELECT shard, cycle, taken_at, CAST(body AS BLOB) FROM read_models;
      DROP TABLE read_models;
      ALTER TABLE read_models_bytes RENAME TO read_models;
    `,
  },
  {
    // A published body as chunks of `readModelChunkBytes` (read-models.ts) in rows of their own: one 85 MiB BLOB was
    // copied twice by SQLite as it was written (the bound value, then the record), 170 MiB at the collector's peak
    // RSS; a chunk of the same size as the previous cycle's is overwritten in place. A body becomes its first chunk.
    version: 12,
    sql: `
      CREATE TABLE read_model_chunks (
        shard TEXT NOT NULL, seq INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (shard, seq)
      );
      INSERT INTO read_model_chunks (shard, seq, bytes) SELECT shard, 0, body FROM read_models;
      ALTER TABLE read_models DROP COLUMN body;
    `,
  },
];
