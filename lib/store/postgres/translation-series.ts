import type pg from "pg";
import type { TranslationSample, TranslationSeriesPoint } from "../types";
import { inTransaction, queryRows } from "./connection";
import { rowsPerStatement, transpose } from "./series";

/** Same series and retention as lib/store/translation-series.ts; offsets and counts are bigint columns. */
const rawRetentionMs = 60 * 60 * 1000;
const minuteRetentionMs = 7 * 24 * 60 * 60 * 1000;
const minuteMs = 60_000;

const str = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: string | null) => (v === null ? null : BigInt(v));

const columns = "committed, translated, checkpoint_downstream, ideal_low, ideal_high, reread, failover_reread, group_lag";
const updates = columns.split(", ").map((c) => `${c} = excluded.${c}`).join(", ");

/** Writes one cycle's samples of a flow, and rolls each into its minute row (last value wins), in one transaction. */
export async function recordTranslationSamples(pool: pg.Pool, flow: string, samples: readonly TranslationSample[], at: number): Promise<void> {
  const byKey = new Map<string, unknown[]>();
  for (const s of samples) {
    byKey.set(`${s.group}\u0000${s.topic}\u0000${s.partition}`, [
      s.group, s.topic, s.partition, s.committed.toString(), str(s.translated), str(s.checkpointDownstream),
      str(s.idealLow), str(s.idealHigh), str(s.reread), str(s.failoverReread), str(s.groupLag),
    ]);
  }
  if (byKey.size === 0) return;
  const rows = [...byKey.values()];
  const bucket = Math.floor(at / minuteMs) * minuteMs;
  await inTransaction(pool, async (client) => {
    for (let i = 0; i < rows.length; i += rowsPerStatement) {
      const values = transpose(rows.slice(i, i + rowsPerStatement), 11);
      for (const [table, time, value] of [["translation_samples", "at", at], ["translation_minutes", "minute", bucket]] as const) {
        await client.query(
          `INSERT INTO ${table} (flow, group_id, topic, partition, ${time}, ${columns})
           SELECT $12, g, t, p, $13::bigint, c1, c2, c3, c4, c5, c6, c7, c8
           FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
                       $9::bigint[], $10::bigint[], $11::bigint[]) AS u(g, t, p, c1, c2, c3, c4, c5, c6, c7, c8)
           ON CONFLICT (flow, group_id, topic, partition, ${time}) DO UPDATE SET ${updates}`,
          [...values, flow, value],
        );
      }
    }
  });
}

interface Row {
  topic: string;
  partition: number;
  at: string;
  committed: string;
  translated: string | null;
  checkpoint_downstream: string | null;
  ideal_low: string | null;
  ideal_high: string | null;
  reread: string | null;
  failover_reread: string | null;
  group_lag: string | null;
}

/** A group's samples between `from` and `to`, by partition then time: minute rows before the oldest raw row, raw after. */
export async function readTranslationSeries(pool: pg.Pool, flow: string, group: string, from: number, to: number): Promise<TranslationSeriesPoint[]> {
  const [oldest] = await queryRows<{ at: string | null }>(pool, "SELECT MIN(at) AS at FROM translation_samples WHERE flow = $1 AND group_id = $2", [flow, group]);
  const oldestRaw = oldest?.at == null ? null : Number(oldest.at);
  const minutesBefore = oldestRaw === null ? to + 1 : Math.floor(oldestRaw / minuteMs) * minuteMs;
  const minutes = await queryRows<Row>(
    pool,
    `SELECT topic, partition, minute AS at, ${columns} FROM translation_minutes WHERE flow = $1 AND group_id = $2 AND minute >= $3 AND minute < $4`,
    [flow, group, from, Math.min(to + 1, minutesBefore)],
  );
  const raw = await queryRows<Row>(
    pool,
    `SELECT topic, partition, at, ${columns} FROM translation_samples WHERE flow = $1 AND group_id = $2 AND at >= $3 AND at <= $4`,
    [flow, group, Math.max(from, oldestRaw ?? to + 1), to],
  );
  return [...minutes, ...raw]
    .map((r) => ({ ...r, at: Number(r.at) }))
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
export async function pruneTranslationSeries(client: pg.PoolClient, now: number): Promise<void> {
  await client.query("DELETE FROM translation_samples WHERE at < $1", [now - rawRetentionMs]);
  await client.query("DELETE FROM translation_minutes WHERE minute < $1", [now - minuteRetentionMs]);
}
