import type pg from "pg";
import type { Flow } from "@/lib/collector/types";
import { sumLagPerTopic } from "../series";
import type { PartitionSample, TopicLagPoint } from "../types";
import { inTransaction, queryRows } from "./connection";

const rawRetentionMs = 60 * 60 * 1000;
const minuteRetentionMs = 7 * 24 * 60 * 60 * 1000;
const minuteMs = 60_000;
/** Rows per INSERT: a cycle of 100,000 partitions is 10 statements per table, each array one parameter. */
export const rowsPerStatement = 10_000;

const str = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: string | null) => (v === null ? null : BigInt(v));
const offsetColumns = "source_log_start, source_log_end, mm2_position, target_log_end, lag";
const updateOffsets = offsetColumns.split(", ").map((c) => `${c} = excluded.${c}`).join(", ");

/**
 * Writes one raw sample per flow partition and rolls it into that minute's row (last value wins), and each topic's
 * lag into its minute row, as the SQLite store does, in one transaction: one multi-row INSERT … SELECT FROM
 * unnest(…) per table and 10,000 rows.
 */
export async function recordFlowSamples(pool: pg.Pool, flows: readonly Flow[], at: number): Promise<void> {
  // One row per key: an upsert may not touch the same row twice in one statement.
  const rows = new Map<string, (string | number | null)[]>();
  const topics: (string | number)[][] = [];
  for (const flow of flows) {
    for (const [topic, lag] of sumLagPerTopic(flow)) topics.push([flow.id, topic, lag.toString()]);
    for (const p of flow.partitions) {
      rows.set(`${flow.id}\u0000${p.topic}\u0000${p.partition}`, [
        flow.id, p.topic, p.partition, str(p.sourceLogStart), str(p.sourceLogEnd), str(p.mm2Position), str(p.targetLogEnd), str(p.lag),
      ]);
    }
  }
  if (rows.size === 0) return;
  const bucket = Math.floor(at / minuteMs) * minuteMs;
  const all = [...rows.values()];
  await inTransaction(pool, async (client) => {
    for (let i = 0; i < all.length; i += rowsPerStatement) {
      const columns = transpose(all.slice(i, i + rowsPerStatement), 8);
      for (const [table, time, value] of [["partition_samples", "at", at], ["partition_minutes", "minute", bucket]] as const) {
        await client.query(
          `INSERT INTO ${table} (flow, topic, partition, ${time}, ${offsetColumns})
           SELECT f, t, p, $9::bigint, a, b, c, d, e
           FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[]) AS u(f, t, p, a, b, c, d, e)
           ON CONFLICT (flow, topic, partition, ${time}) DO UPDATE SET ${updateOffsets}`,
          [...columns, value],
        );
      }
    }
    for (let i = 0; i < topics.length; i += rowsPerStatement) {
      await client.query(
        `INSERT INTO topic_minutes (flow, topic, minute, lag) SELECT f, t, $4::bigint, l FROM unnest($1::text[], $2::text[], $3::numeric[]) AS u(f, t, l)
         ON CONFLICT (flow, minute, topic) DO UPDATE SET lag = excluded.lag`,
        [...transpose(topics.slice(i, i + rowsPerStatement), 3), bucket],
      );
    }
  });
}

/** Rows → one array per column (unnest's parameters). */
export function transpose(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let c = 0; c < width; c++) columns[c]!.push(row[c]);
  return columns;
}

interface SampleRow {
  at: string;
  source_log_start: string | null;
  source_log_end: string | null;
  mm2_position: string | null;
  target_log_end: string | null;
  lag: string | null;
}

/** A partition's offsets between `from` and `to`: minute rows before the oldest raw sample, raw samples from it on. */
export async function readPartitionHistory(pool: pg.Pool, flow: string, topic: string, partition: number, from: number, to: number): Promise<PartitionSample[]> {
  const key = [flow, topic, partition];
  const [oldest] = await queryRows<{ at: string | null }>(pool, "SELECT MIN(at) AS at FROM partition_samples WHERE flow = $1 AND topic = $2 AND partition = $3", key);
  const oldestRaw = oldest?.at == null ? null : Number(oldest.at);
  const rawFrom = oldestRaw === null ? to + 1 : Math.max(from, oldestRaw);
  // A minute row holds its minute's last value: only minutes that ended before the oldest raw sample (series.ts).
  const minutesBefore = oldestRaw === null ? to + 1 : Math.floor(oldestRaw / minuteMs) * minuteMs;
  const minutes = await queryRows<SampleRow>(
    pool,
    `SELECT minute AS at, ${offsetColumns} FROM partition_minutes
     WHERE flow = $1 AND topic = $2 AND partition = $3 AND minute >= $4 AND minute < $5 ORDER BY minute`,
    [...key, from, Math.min(to + 1, minutesBefore)],
  );
  const raw = await queryRows<SampleRow>(
    pool,
    `SELECT at, ${offsetColumns} FROM partition_samples WHERE flow = $1 AND topic = $2 AND partition = $3 AND at >= $4 AND at <= $5 ORDER BY at`,
    [...key, rawFrom, to],
  );
  return [...minutes, ...raw].map((r) => ({
    at: Number(r.at),
    sourceLogStart: big(r.source_log_start),
    sourceLogEnd: big(r.source_log_end),
    mm2Position: big(r.mm2_position),
    targetLogEnd: big(r.target_log_end),
    lag: big(r.lag),
  }));
}

/** Total lag per topic per minute over a range (sparklines on the flow page), from the topic rollup. */
export async function readTopicLagSeries(pool: pg.Pool, flow: string, from: number, to: number): Promise<TopicLagPoint[]> {
  const rows = await queryRows<{ topic: string; at: string; lag: string }>(
    pool,
    `SELECT topic, minute AS at, lag FROM topic_minutes WHERE flow = $1 AND minute >= $2 AND minute <= $3 ORDER BY topic COLLATE "C", minute`,
    [flow, from, to],
  );
  return rows.map((r) => ({ topic: r.topic, at: Number(r.at), lag: Number(r.lag) }));
}

/** Drops raw samples older than an hour and minute rows older than 7 days. */
export async function pruneSeries(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM partition_samples WHERE at < $1", [now - rawRetentionMs]);
  await client.query("DELETE FROM partition_minutes WHERE minute < $1", [now - minuteRetentionMs]);
  await client.query("DELETE FROM topic_minutes WHERE minute < $1", [now - minuteRetentionMs]);
}
