import type pg from "pg";
import type { Flow } from "@/lib/collector/types";
import { listPartitionItems, partitionSpec, planTopicCompaction, sumLagPerTopic, toPartitionSample, topicRetentionMs } from "../series";
import type { PartitionSample, TopicLagPoint } from "../types";
import { inTransaction, queryRows } from "./connection";
import { PostgresTieredTable } from "./tiered-table";

const minuteMs = 60_000;
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
      await partitions.write(pool, listPartitionItems(flows), at);
      const changed: [string, string, string][] = [];
      for (const flow of flows) {
        for (const [topic, lag] of sumLagPerTopic(flow)) {
          if (topicLags.get(`${flow.id}\u0000${topic}`) !== lag.toString()) changed.push([flow.id, topic, lag.toString()]);
        }
      }
      if (changed.length === 0) return;
      const minute = Math.floor(at / minuteMs) * minuteMs;
      await inTransaction(pool, async (client) => {
        for (let i = 0; i < changed.length; i += rowsPerStatement) {
          await client.query(
            `INSERT INTO topic_minutes (flow, topic, minute, lag) SELECT f, t, $4::bigint, l FROM unnest($1::text[], $2::text[], $3::numeric[]) AS u(f, t, l)
             ON CONFLICT (flow, minute, topic) DO UPDATE SET lag = excluded.lag`,
            [...transpose(changed.slice(i, i + rowsPerStatement), 3), minute],
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

    /** Total lag per topic per minute over a range, by topic then time, each topic's last row before `from` at `from`. */
    async readTopicLag(pool: pg.Pool, flow: string, from: number, to: number): Promise<TopicLagPoint[]> {
      const rows = await queryRows<{ topic: string; at: string; lag: string }>(
        pool,
        `WITH RECURSIVE t(topic) AS (
           SELECT MIN(topic COLLATE "C") FROM topic_minutes WHERE flow = $1
           UNION ALL SELECT (SELECT MIN(topic COLLATE "C") FROM topic_minutes WHERE flow = $1 AND topic COLLATE "C" > t.topic) FROM t WHERE t.topic IS NOT NULL)
         SELECT topic, at, lag FROM (
           SELECT t.topic, $2::bigint AS at, b.lag FROM t
             CROSS JOIN LATERAL (SELECT lag FROM topic_minutes WHERE flow = $1 AND topic = t.topic AND minute < $2 ORDER BY minute DESC LIMIT 1) AS b
             WHERE t.topic IS NOT NULL AND NOT EXISTS (SELECT 1 FROM topic_minutes WHERE flow = $1 AND topic = t.topic AND minute = $2)
           UNION ALL
           SELECT topic, minute AS at, lag FROM topic_minutes WHERE flow = $1 AND minute >= $2 AND minute <= $3) AS points
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
        const values = [3_600_000, compaction.from, compaction.to];
        await client.query(
          `INSERT INTO topic_minutes (flow, topic, minute, lag)
           SELECT flow, topic, (minute / $1::bigint) * $1::bigint, MAX(lag) FROM topic_minutes WHERE minute >= $2 AND minute < $3
           GROUP BY flow, topic, minute / $1::bigint
           ON CONFLICT (flow, minute, topic) DO UPDATE SET lag = excluded.lag`,
          values,
        );
        await client.query("DELETE FROM topic_minutes WHERE minute >= $2 AND minute < $3 AND minute % $1::bigint <> 0", values);
        // Remembered at once: a rolled-back prune compacts the same hours again next time (idempotent).
        compactedTo = compaction.to;
      }
      await client.query(
        `DELETE FROM topic_minutes AS m WHERE minute < $1
         AND minute < (SELECT MAX(t.minute) FROM topic_minutes AS t WHERE t.flow = m.flow AND t.topic = m.topic)`,
        [now - topicRetentionMs],
      );
    },
  };
}
