import type { Flow } from "@/lib/collector/types";
import type { SqliteDb } from "./db";
import { SqliteTieredTable } from "./tiered-table";
import type { Columns, SeriesBatch, SeriesValue } from "./series-batch";
import { tiers } from "./tiers";
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
 * topic_hours (migration 9): a row per topic and hour holding, as a JSON array of [minute of the hour, lag], the
 * minutes of that hour in which its lag changed, for 24 h; then the hour's largest lag alone at the hour's start (a
 * sparkline over days shows the largest lag per bucket) up to 7 days; the newest row of a topic stays beyond (carried
 * forward). A row per topic and hour instead of per minute: the flow and topic names and index entries are stored
 * once an hour, not once a minute (30,000 changing topics ≈ 30,000 × (24 + 144) ≈ 5 M rows at most).
 */
export const topicMinuteRowsMs = 24 * hourMs;
export const topicRetentionMs = tiers.at(-1)!.retentionMs;

/** The hours of topic rows to compact to their largest lag at `now`: [from, to), `to` an hour boundary 24 h back. */
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

/** The flows' partitions as one batch (keys and values in partitionSpec's column order). */
export function listPartitionBatch(flows: readonly Flow[]): SeriesBatch {
  const count = flows.reduce((sum, f) => sum + f.partitions.length, 0);
  const [flowIds, topics, partitions] = [new Array<string>(count), new Array<string>(count), new Array<number>(count)];
  const values = partitionSpec.valueColumns.map(() => new Array<SeriesValue>(count));
  const [sourceLogStart, sourceLogEnd, mm2Position, targetLogEnd, lag] = values as Columns<5>;
  let i = 0;
  for (const flow of flows) {
    for (const p of flow.partitions) {
      flowIds[i] = flow.id;
      topics[i] = p.topic;
      partitions[i] = p.partition;
      sourceLogStart[i] = p.sourceLogStart;
      sourceLogEnd[i] = p.sourceLogEnd;
      mm2Position[i] = p.mm2Position;
      targetLogEnd[i] = p.targetLogEnd;
      lag[i] = p.lag;
      i++;
    }
  }
  return { keys: [flowIds, topics, partitions], values };
}

/**
 * A flow's lag per topic this cycle, unknown lags left out (0 when none is known), as the sum of the partitions'
 * samples gives it: a topic has the same partitions in every cycle (Kafka never removes one).
 */
export function sumLagPerTopic(flow: Flow): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  // A flow lists a topic's partitions together (flow-builder.ts): each run is summed, then added to the map once.
  let topic: string | null = null;
  let sum = 0n;
  for (const p of flow.partitions) {
    if (p.topic !== topic) {
      if (topic !== null) sums.set(topic, (sums.get(topic) ?? 0n) + sum);
      topic = p.topic;
      sum = 0n;
    }
    if (p.lag !== null) sum += p.lag;
  }
  if (topic !== null) sums.set(topic, (sums.get(topic) ?? 0n) + sum);
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
      partitions.write(listPartitionBatch(flows), at);
      const changed: [string, string, number][] = [];
      for (const flow of flows) {
        for (const [topic, lag] of sumLagPerTopic(flow)) {
          if (topicLags.get(`${flow.id}\u0000${topic}`) !== Number(lag)) changed.push([flow.id, topic, Number(lag)]);
        }
      }
      if (changed.length === 0) return;
      // Appends [minute of the hour, lag] to the topic's hour row, or replaces the last point when it is of the same minute.
      const upsert = db.prepare(
        `INSERT INTO topic_hours (flow, topic, hour, data) VALUES (?, ?, ?, json_array(json_array(?, ?)))
         ON CONFLICT (flow, topic, hour) DO UPDATE SET data = CASE
           WHEN data ->> '$[#-1][0]' = excluded.data ->> '$[0][0]' THEN json_set(data, '$[#-1]', excluded.data -> '$[0]')
           ELSE json_insert(data, '$[#]', excluded.data -> '$[0]') END`,
      );
      const hour = Math.floor(at / hourMs) * hourMs;
      const minuteOfHour = Math.floor((at - hour) / minuteMs);
      db.transaction(() => {
        // As integers (a JS number is bound as a REAL: 12 would be stored as 12.0), a lag beyond int64 as a REAL.
        for (const [flow, topic, lag] of changed) upsert.run(flow, topic, hour, BigInt(minuteOfHour), Math.abs(lag) < 2 ** 63 ? BigInt(lag) : lag);
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
             SELECT MIN(topic) FROM topic_hours WHERE flow = :flow
             UNION ALL SELECT (SELECT MIN(topic) FROM topic_hours WHERE flow = :flow AND topic > t.topic) FROM t WHERE t.topic IS NOT NULL)
           SELECT topic FROM t WHERE topic IS NOT NULL`,
        )
        .pluck()
        .all({ flow }) as string[];
      const select = `SELECT hour + (value ->> 0) * ${minuteMs} AS at, value ->> 1 AS lag FROM topic_hours, json_each(topic_hours.data)`;
      // Hour rows after `from` − 1 h may hold points at or after `from`.
      const inRange = db.prepare(`${select} WHERE flow = ? AND topic = ? AND hour > ? AND hour <= ? AND at >= ? AND at <= ? ORDER BY at`);
      // The last point before `from` is in one of the two newest hour rows before it (the newest may hold only later ones).
      const before = db.prepare(
        `${select} WHERE flow = :flow AND topic = :topic AND at < :from
         AND hour IN (SELECT hour FROM topic_hours WHERE flow = :flow AND topic = :topic AND hour < :from ORDER BY hour DESC LIMIT 2)
         ORDER BY at DESC LIMIT 1`,
      );
      const points: TopicLagPoint[] = [];
      for (const topic of topics) {
        const rows = inRange.all(flow, topic, from - hourMs, to, from, to) as { at: number; lag: number }[];
        const previous = rows[0]?.at === from ? undefined : (before.get({ flow, topic, from }) as { lag: number } | undefined);
        if (previous !== undefined) points.push({ topic, at: from, lag: previous.lag });
        for (const r of rows) points.push({ topic, at: r.at, lag: r.lag });
      }
      return points;
    },

    /** Drops rows past each tier's window, compacts topic minutes older than 24 h to hours; newest rows stay. */
    prune(now: number): void {
      partitions.prune(now);
      const compaction = planTopicCompaction(compactedTo, now);
      if (compaction) {
        db.prepare(
          `UPDATE topic_hours SET data = json_array(json_array(0, (SELECT MAX(value ->> 1) FROM json_each(topic_hours.data))))
           WHERE hour >= ? AND hour < ? AND (json_array_length(data) > 1 OR data ->> '$[0][0]' <> 0)`,
        ).run(compaction.from, compaction.to);
        compactedTo = compaction.to;
      }
      db.prepare(
        `DELETE FROM topic_hours WHERE hour < ?
         AND hour < (SELECT MAX(t.hour) FROM topic_hours AS t WHERE t.flow = topic_hours.flow AND t.topic = topic_hours.topic)`,
      ).run(now - topicRetentionMs);
    },
  };
}
