import type { SqliteDb } from "./db";
import type { TranslationSample, TranslationSeriesPoint } from "./types";

/**
 * Offset-translation series (migration 2): one raw row per flow × group × partition per cycle,
 * kept one hour, and the last row of each minute kept 7 days (same retention as partition series).
 * Offsets and counts are decimal TEXT.
 */
const rawRetentionMs = 60 * 60 * 1000;
const minuteRetentionMs = 7 * 24 * 60 * 60 * 1000;
const minuteMs = 60_000;

const str = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: string | null) => (v === null ? null : BigInt(v));

const columns = "committed, translated, checkpoint_downstream, ideal_low, ideal_high, reread, failover_reread, group_lag";

/** Writes one cycle's samples of a flow, and rolls each into its minute row (last value wins). */
export function recordTranslationSamples(db: SqliteDb, flow: string, samples: readonly TranslationSample[], at: number): void {
  if (samples.length === 0) return;
  const raw = db.prepare(`INSERT OR REPLACE INTO translation_samples (flow, group_id, topic, partition, at, ${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const minute = db.prepare(`INSERT OR REPLACE INTO translation_minutes (flow, group_id, topic, partition, minute, ${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const bucket = Math.floor(at / minuteMs) * minuteMs;
  db.transaction(() => {
    for (const s of samples) {
      const values = [s.committed.toString(), str(s.translated), str(s.checkpointDownstream), str(s.idealLow), str(s.idealHigh), str(s.reread), str(s.failoverReread), str(s.groupLag)];
      raw.run(flow, s.group, s.topic, s.partition, at, ...values);
      minute.run(flow, s.group, s.topic, s.partition, bucket, ...values);
    }
  })();
}

interface Row {
  topic: string;
  partition: number;
  at: number;
  committed: string;
  translated: string | null;
  checkpoint_downstream: string | null;
  ideal_low: string | null;
  ideal_high: string | null;
  reread: string | null;
  failover_reread: string | null;
  group_lag: string | null;
}

/**
 * A group's samples between `from` and `to`, ordered by partition then time: raw rows where they
 * still exist (last hour), minute rows before the oldest raw row of the group.
 */
export function readTranslationSeries(db: SqliteDb, flow: string, group: string, from: number, to: number): TranslationSeriesPoint[] {
  const oldestRaw = (db.prepare("SELECT MIN(at) AS at FROM translation_samples WHERE flow = ? AND group_id = ?").get(flow, group) as { at: number | null }).at;
  const minutesBefore = oldestRaw === null ? to + 1 : Math.floor(oldestRaw / minuteMs) * minuteMs;
  const minutes = db
    .prepare(`SELECT topic, partition, minute AS at, ${columns} FROM translation_minutes WHERE flow = ? AND group_id = ? AND minute >= ? AND minute < ?`)
    .all(flow, group, from, Math.min(to + 1, minutesBefore)) as Row[];
  const raw = db
    .prepare(`SELECT topic, partition, at, ${columns} FROM translation_samples WHERE flow = ? AND group_id = ? AND at >= ? AND at <= ?`)
    .all(flow, group, Math.max(from, oldestRaw ?? to + 1), to) as Row[];
  return [...minutes, ...raw]
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition || a.at - b.at)
    .map((r) => ({
      group,
      topic: r.topic,
      partition: r.partition,
      at: r.at,
      committed: BigInt(r.committed),
      translated: big(r.translated),
      checkpointDownstream: big(r.checkpoint_downstream),
      idealLow: big(r.ideal_low),
      idealHigh: big(r.ideal_high),
      reread: big(r.reread),
      failoverReread: big(r.failover_reread),
      groupLag: big(r.group_lag),
    }));
}

/** Drops raw rows older than an hour and minute rows older than 7 days. */
export function pruneTranslationSeries(db: SqliteDb, now: number): void {
  db.prepare("DELETE FROM translation_samples WHERE at < ?").run(now - rawRetentionMs);
  db.prepare("DELETE FROM translation_minutes WHERE minute < ?").run(now - minuteRetentionMs);
}
