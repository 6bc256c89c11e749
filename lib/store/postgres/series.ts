import type pg from "pg";
import type { Flow } from "@/lib/collector/types";
import { listPartitionBatch, partitionSpec, planTopicCompaction, sumLagPerTopic, toPartitionSample, topicRetentionMs } from "../series";
import type { PartitionSample, TopicLagPoint } from "../types";
import { inTransaction, queryRows } from "./connection";
import { PostgresTieredTable } from "./tiered-table";

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
/** An hour row's last minute is the one being written. */
const sameMinute = "topic_hours.minutes[cardinality(topic_hours.minutes)] = excluded.minutes[1]";
/** Each point of the hour rows `h`, as (at, lag). */
const hourPoints = `unnest(h.minutes, h.lags) AS p(m, lag)`;
/** Rows per INSERT: a cycle of 100,000 partitions is 10 statements per table, each array one parameter. */
export const rowsPerStatement = 10_000;

/** Rows → one array per column (unnest's parameters). */
export function transpose(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let c = 0; c < width; c++) columns[c]!.push(row[c]);
  return columns;
}

/** The partition series and topic lag minutes of the PostgreSQL store, as the SQLite store's (lib/store/series.ts). */
export function createPostgresSeries() {
  const partitions = new PostgresTieredTable({ ...partitionSpec, keyTypes: ["text", "text", "int"] });
  /** Lag last written per flow\u0000topic (numeric text: a sum of int64 lags may exceed int64). */
  const topicLags = new Map<string, string>();
  /** Topic minutes before this are compacted to hours (lib/store/series.ts; 0: not known, compact all). */
  let compactedTo = 0;
  return {
    /** Writes the partitions and topic lags that changed since they were last written. */
    async record(pool: pg.Pool, flows: readonly Flow[], at: number): Promise<void> {
      await partitions.write(pool, listPartitionBatch(flows), at);
      const changed: [string, string, string][] = [];
      for (const flow of flows) {
        for (const [topic, lag] of sumLagPerTopic(flow)) {
          if (topicLags.get(`${flow.id}\u0000${topic}`) !== lag.toString()) changed.push([flow.id, topic, lag.toString()]);
        }
      }
      if (changed.length === 0) return;
      const hour = Math.floor(at / hourMs) * hourMs;
      const minuteOfHour = Math.floor((at - hour) / minuteMs);
      await inTransaction(pool, async (client) => {
        for (let i = 0; i < changed.length; i += rowsPerStatement) {
          // Appends the minute and lag to the topic's hour row, or replaces the last lag when it is of the same minute
          // (SET reads the row as it was).
          await client.query(
            `INSERT INTO topic_hours (flow, topic, hour, minutes, lags)
             SELECT f, t, $4::bigint, ARRAY[$5::smallint], ARRAY[l] FROM unnest($1::text[], $2::text[], $3::numeric[]) AS u(f, t, l)
             ON CONFLICT (flow, topic, hour) DO UPDATE SET
               minutes = CASE WHEN ${sameMinute} THEN topic_hours.minutes ELSE topic_hours.minutes || excluded.minutes END,
               lags = CASE WHEN ${sameMinute} THEN topic_hours.lags[1:cardinality(topic_hours.lags) - 1] || excluded.lags
                 ELSE topic_hours.lags || excluded.lags END`,
            [...transpose(changed.slice(i, i + rowsPerStatement), 3), hour, minuteOfHour],
          );
        }
      });
      for (const [flow, topic, lag] of changed) topicLags.set(`${flow}\u0000${topic}`, lag);
    },

    async readHistory(pool: pg.Pool, flow: string, topic: string, partition: number, from: number, to: number): Promise<PartitionSample[]> {
      const [series] = await partitions.findSeries(pool, [flow, topic, partition]);
      if (!series) return [];
      const points = (await partitions.read(pool, [series.id], from, to)).get(series.id) ?? [];
      return points.map(toPartitionSample);
    },

    /** Total lag per topic per minute over a range, by topic then time, each topic's last point before `from` at `from`. */
    async readTopicLag(pool: pg.Pool, flow: string, from: number, to: number): Promise<TopicLagPoint[]> {
      const rows = await queryRows<{ topic: string; at: string; lag: string }>(
        pool,
        `WITH RECURSIVE t(topic) AS (
           SELECT MIN(topic COLLATE "C") FROM topic_hours WHERE flow = $1
           UNION ALL SELECT (SELECT MIN(topic COLLATE "C") FROM topic_hours WHERE flow = $1 AND topic COLLATE "C" > t.topic) FROM t WHERE t.topic IS NOT NULL)
         SELECT topic, at, lag FROM (
           SELECT t.topic, $2::bigint AS at, b.lag FROM t
             CROSS JOIN LATERAL (
               SELECT p.lag FROM (SELECT hour, minutes, lags FROM topic_hours WHERE flow = $1 AND topic = t.topic AND hour < $2::bigint ORDER BY hour DESC LIMIT 2) AS h,
                 ${hourPoints} WHERE h.hour + p.m * ${minuteMs} < $2::bigint ORDER BY h.hour + p.m * ${minuteMs} DESC LIMIT 1) AS b
             WHERE t.topic IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM topic_hours AS h, ${hourPoints}
               WHERE h.flow = $1 AND h.topic = t.topic AND h.hour > $2::bigint - ${hourMs} AND h.hour <= $2::bigint AND h.hour + p.m * ${minuteMs} = $2::bigint)
           UNION ALL
           SELECT h.topic, h.hour + p.m * ${minuteMs} AS at, p.lag FROM topic_hours AS h, ${hourPoints}
             WHERE h.flow = $1 AND h.hour > $2::bigint - ${hourMs} AND h.hour <= $3::bigint AND h.hour + p.m * ${minuteMs} BETWEEN $2::bigint AND $3::bigint) AS points
         ORDER BY topic COLLATE "C", at`,
        [flow, from, to],
      );
      return rows.map((r) => ({ topic: r.topic, at: Number(r.at), lag: Number(r.lag) }));
    },

    /** Drops rows past each tier's window, compacts topic minutes older than 24 h to hours; newest rows stay. */
    async prune(pool: pg.Pool, client: pg.PoolClient, now: number): Promise<void> {
      await partitions.prune(pool, client, now);
      const compaction = planTopicCompaction(compactedTo, now);
      if (compaction) {
        await client.query(
          `UPDATE topic_hours SET minutes = ARRAY[0::smallint], lags = ARRAY[(SELECT MAX(l) FROM unnest(lags) AS l)]
           WHERE hour >= $1 AND hour < $2 AND (cardinality(minutes) > 1 OR minutes[1] <> 0)`,
          [compaction.from, compaction.to],
        );
        // Remembered at once: a rolled-back prune compacts the same hours again next time (idempotent).
        compactedTo = compaction.to;
      }
      await client.query(
        `DELETE FROM topic_hours AS m WHERE hour < $1
         AND hour < (SELECT MAX(t.hour) FROM topic_hours AS t WHERE t.flow = m.flow AND t.topic = m.topic)`,
        [now - topicRetentionMs],
      );
    },
  };
}
