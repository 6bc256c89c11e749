import type { Flow } from "@/lib/collector/types";
import type { SqliteDb } from "./db";
import type { PartitionSample, TopicLagPoint } from "./types";

const rawRetentionMs = 60 * 60 * 1000;
const minuteRetentionMs = 7 * 24 * 60 * 60 * 1000;
const minuteMs = 60_000;

const str = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: string | null) => (v === null ? null : BigInt(v));

/**
 * Writes one raw sample per flow partition and rolls it into that minute's row (last value wins), and the cycle's
 * lag per topic (known lags summed) into the topic's minute row (last cycle of the minute wins).
 */
export function recordFlowSamples(db: SqliteDb, flows: readonly Flow[], at: number): void {
  const raw = db.prepare(
    `INSERT OR REPLACE INTO partition_samples (flow, topic, partition, at, source_log_start, source_log_end, mm2_position, target_log_end, lag)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const minute = db.prepare(
    `INSERT OR REPLACE INTO partition_minutes (flow, topic, partition, minute, source_log_start, source_log_end, mm2_position, target_log_end, lag)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const topicMinute = db.prepare("INSERT OR REPLACE INTO topic_minutes (flow, topic, minute, lag) VALUES (?, ?, ?, ?)");
  const bucket = Math.floor(at / minuteMs) * minuteMs;
  db.transaction(() => {
    for (const flow of flows) {
      for (const p of flow.partitions) {
        const values = [str(p.sourceLogStart), str(p.sourceLogEnd), str(p.mm2Position), str(p.targetLogEnd), str(p.lag)];
        raw.run(flow.id, p.topic, p.partition, at, ...values);
        minute.run(flow.id, p.topic, p.partition, bucket, ...values);
      }
      for (const [topic, lag] of sumLagPerTopic(flow)) topicMinute.run(flow.id, topic, bucket, Number(lag));
    }
  })();
}

/**
 * A flow's lag per topic this cycle, unknown lags left out (0 when none is known), as the sum of the partitions'
 * minute rows gives it: a topic has the same partitions in every cycle of a minute (Kafka never removes one).
 */
export function sumLagPerTopic(flow: Flow): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const p of flow.partitions) sums.set(p.topic, (sums.get(p.topic) ?? 0n) + (p.lag ?? 0n));
  return sums;
}

interface SampleRow {
  at: number;
  source_log_start: string | null;
  source_log_end: string | null;
  mm2_position: string | null;
  target_log_end: string | null;
  lag: string | null;
}

/**
 * A partition's offsets between `from` and `to`: raw samples where they still exist (last hour),
 * per-minute rows before that.
 */
export function readPartitionHistory(db: SqliteDb, flow: string, topic: string, partition: number, from: number, to: number): PartitionSample[] {
  const oldestRaw = (db.prepare("SELECT MIN(at) AS at FROM partition_samples WHERE flow = ? AND topic = ? AND partition = ?").get(flow, topic, partition) as { at: number | null }).at;
  const rawFrom = oldestRaw === null ? to + 1 : Math.max(from, oldestRaw);
  // A minute row holds the last value of its minute: only minutes that ended before the oldest
  // raw sample, or it would repeat raw samples with a later value at an earlier time.
  const minutesBefore = oldestRaw === null ? to + 1 : Math.floor(oldestRaw / minuteMs) * minuteMs;
  const minutes = db
    .prepare(`SELECT minute AS at, source_log_start, source_log_end, mm2_position, target_log_end, lag FROM partition_minutes
              WHERE flow = ? AND topic = ? AND partition = ? AND minute >= ? AND minute < ? ORDER BY minute`)
    .all(flow, topic, partition, from, Math.min(to + 1, minutesBefore)) as SampleRow[];
  const raw = db
    .prepare(`SELECT at, source_log_start, source_log_end, mm2_position, target_log_end, lag FROM partition_samples
              WHERE flow = ? AND topic = ? AND partition = ? AND at >= ? AND at <= ? ORDER BY at`)
    .all(flow, topic, partition, rawFrom, to) as SampleRow[];
  return [...minutes, ...raw].map((r) => ({
    at: r.at,
    sourceLogStart: big(r.source_log_start),
    sourceLogEnd: big(r.source_log_end),
    mm2Position: big(r.mm2_position),
    targetLogEnd: big(r.target_log_end),
    lag: big(r.lag),
  }));
}

/** Total lag per topic per minute over a range (sparklines on the flow page), from the topic rollup. */
export function readTopicLagSeries(db: SqliteDb, flow: string, from: number, to: number): TopicLagPoint[] {
  return db
    .prepare("SELECT topic, minute AS at, lag FROM topic_minutes WHERE flow = ? AND minute >= ? AND minute <= ? ORDER BY topic, minute")
    .all(flow, from, to) as TopicLagPoint[];
}

/** Drops raw samples older than an hour and minute rows older than 7 days. */
export function pruneSeries(db: SqliteDb, now: number): void {
  db.prepare("DELETE FROM partition_samples WHERE at < ?").run(now - rawRetentionMs);
  db.prepare("DELETE FROM partition_minutes WHERE minute < ?").run(now - minuteRetentionMs);
  db.prepare("DELETE FROM topic_minutes WHERE minute < ?").run(now - minuteRetentionMs);
}
