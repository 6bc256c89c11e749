import type { Flow } from "@/lib/collector/types";
import type { SqliteDb } from "./db";
import { SqliteTieredTable } from "./tiered-table";
import { type SeriesItem, seriesKey, tiers } from "./tiers";
import type { PartitionSample, TopicLagPoint } from "./types";

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
/** A stored point of a partition series (values in partitionSpec's column order) as a sample; both stores read it so. */
export function toPartitionSample(point: { at: number; values: readonly (bigint | null)[] }): PartitionSample {
  const [sourceLogStart, sourceLogEnd, mm2Position, targetLogEnd, lag] = point.values;
  return {
    at: point.at,
    sourceLogStart: sourceLogStart ?? null,
    sourceLogEnd: sourceLogEnd ?? null,
    mm2Position: mm2Position ?? null,
    targetLogEnd: targetLogEnd ?? null,
    lag: lag ?? null,
  };
}

/**
 * topic_minutes: a row per topic and minute in which its lag changed, for 24 h; then one row per topic and hour (the
 * hour's largest lag: a sparkline over days shows the largest lag per bucket) up to 7 days; the newest row of a
 * topic stays beyond (carried forward). 30,000 changing topics ≈ 30,000 × (1,440 + 144) ≈ 48 M rows at most.
 */
export const topicMinuteRowsMs = 24 * hourMs;
export const topicRetentionMs = tiers.at(-1)!.retentionMs;

/** The hours of topic minute rows to compact at `now`: [from, to), `to` an hour boundary 24 h back. */
export function planTopicCompaction(compactedTo: number, now: number): { from: number; to: number } | null {
  const to = Math.floor((now - topicMinuteRowsMs) / hourMs) * hourMs;
  return to > compactedTo ? { from: compactedTo, to } : null;
}

export const partitionSpec = {
  series: "partition_series",
  staged: "partition_staged",
  packs: "partition_packs",
  keyColumns: ["flow", "topic", "partition"],
  valueColumns: ["source_log_start", "source_log_end", "mm2_position", "target_log_end", "lag"],
} as const;

/** A flow's partitions as series items (values in partitionSpec's column order). */
export function listPartitionItems(flows: readonly Flow[]): SeriesItem[] {
  const items: SeriesItem[] = [];
  for (const flow of flows) {
    for (const p of flow.partitions) {
      const keyValues = [flow.id, p.topic, p.partition];
      items.push({ key: seriesKey(keyValues), keyValues, values: [p.sourceLogStart, p.sourceLogEnd, p.mm2Position, p.targetLogEnd, p.lag] });
    }
  }
  return items;
}

/**
 * A flow's lag per topic this cycle, unknown lags left out (0 when none is known), as the sum of the partitions'
 * samples gives it: a topic has the same partitions in every cycle (Kafka never removes one).
 */
export function sumLagPerTopic(flow: Flow): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const p of flow.partitions) sums.set(p.topic, (sums.get(p.topic) ?? 0n) + (p.lag ?? 0n));
  return sums;
}

/** The partition series and topic lag minutes of the SQLite store (change-only and tiered: tiers.ts). */
export function createSqliteSeries(db: SqliteDb) {
  const partitions = new SqliteTieredTable(db, partitionSpec);
  /** Lag last written per flow\u0000topic. */
  const topicLags = new Map<string, number>();
  /** Topic minutes before this are compacted to hours (0: not known, compact all). */
  let compactedTo = 0;
  return {
    /** Writes the partitions and topic lags that changed since they were last written. */
    record(flows: readonly Flow[], at: number): void {
      partitions.write(listPartitionItems(flows), at);
      const changed: [string, string, number][] = [];
      for (const flow of flows) {
        for (const [topic, lag] of sumLagPerTopic(flow)) {
          if (topicLags.get(`${flow.id}\u0000${topic}`) !== Number(lag)) changed.push([flow.id, topic, Number(lag)]);
        }
      }
      if (changed.length === 0) return;
      const insert = db.prepare("INSERT OR REPLACE INTO topic_minutes (flow, topic, minute, lag) VALUES (?, ?, ?, ?)");
      const minute = Math.floor(at / minuteMs) * minuteMs;
      db.transaction(() => {
        for (const [flow, topic, lag] of changed) insert.run(flow, topic, minute, lag);
      })();
      for (const [flow, topic, lag] of changed) topicLags.set(`${flow}\u0000${topic}`, lag);
    },

    /** A partition's offsets over [from, to] (raw for the last hour, then 5-minute, then hourly rows; tiers.ts). */
    readHistory(flow: string, topic: string, partition: number, from: number, to: number): PartitionSample[] {
      const [series] = partitions.findSeries([flow, topic, partition]);
      if (!series) return [];
      return (partitions.read([series.id], from, to).get(series.id) ?? []).map(toPartitionSample);
    },

    /**
     * Total lag per topic per minute over a range (sparklines), by topic then time. A topic's row is written only in
     * a minute its lag changed: the last row before `from` is returned at `from` (carried forward), so an idle
     * topic still has its value over the range.
     */
    readTopicLag(flow: string, from: number, to: number): TopicLagPoint[] {
      const topics = db
        .prepare(
          `WITH RECURSIVE t(topic) AS (
             SELECT MIN(topic) FROM topic_minutes WHERE flow = :flow
             UNION ALL SELECT (SELECT MIN(topic) FROM topic_minutes WHERE flow = :flow AND topic > t.topic) FROM t WHERE t.topic IS NOT NULL)
           SELECT topic FROM t WHERE topic IS NOT NULL`,
        )
        .pluck()
        .all({ flow }) as string[];
      const inRange = db.prepare("SELECT minute AS at, lag FROM topic_minutes WHERE flow = ? AND topic = ? AND minute >= ? AND minute <= ? ORDER BY minute");
      const before = db.prepare("SELECT lag FROM topic_minutes WHERE flow = ? AND topic = ? AND minute < ? ORDER BY minute DESC LIMIT 1").pluck();
      const points: TopicLagPoint[] = [];
      for (const topic of topics) {
        const rows = inRange.all(flow, topic, from, to) as { at: number; lag: number }[];
        const previous = rows[0]?.at === from ? undefined : (before.get(flow, topic, from) as number | undefined);
        if (previous !== undefined) points.push({ topic, at: from, lag: previous });
        for (const r of rows) points.push({ topic, at: r.at, lag: r.lag });
      }
      return points;
    },

    /** Drops rows past each tier's window, compacts topic minutes older than 24 h to hours; newest rows stay. */
    prune(now: number): void {
      partitions.prune(now);
      const compaction = planTopicCompaction(compactedTo, now);
      if (compaction) {
        // The bucket arithmetic on BigInts: a JS number is bound as a REAL, and minute / hour would not be an integer.
        const hour = BigInt(hourMs);
        db.transaction(() => {
          db.prepare(
            `INSERT OR REPLACE INTO topic_minutes (flow, topic, minute, lag)
             SELECT flow, topic, (minute / :hour) * :hour, MAX(lag) FROM topic_minutes WHERE minute >= :from AND minute < :to
             GROUP BY flow, topic, minute / :hour`,
          ).run({ hour, ...compaction });
          db.prepare("DELETE FROM topic_minutes WHERE minute >= :from AND minute < :to AND minute % :hour != 0").run({ hour, ...compaction });
        })();
        compactedTo = compaction.to;
      }
      db.prepare(
        `DELETE FROM topic_minutes WHERE minute < ?
         AND minute < (SELECT MAX(t.minute) FROM topic_minutes AS t WHERE t.flow = topic_minutes.flow AND t.topic = topic_minutes.topic)`,
      ).run(now - topicRetentionMs);
    },
  };
}
