import type pg from "pg";
import { ChangeFilter, coarsestTier, listTierBounds, mergeTierRows, planRollups, type Rollup, type SeriesItem, seriesKey, type TierRow, tiers } from "../tiers";
import { inTransaction, queryRows } from "./connection";
import { rowsPerStatement, transpose } from "./series";

/** A tiered, change-only series table of the PostgreSQL store: the SQLite store's (lib/store/tiered-table.ts), values bigint. */
interface PostgresTieredTableSpec {
  series: string;
  points: string;
  keyColumns: readonly string[];
  /** Each key column's type, for unnest (text, int). */
  keyTypes: readonly string[];
  valueColumns: readonly string[];
}

const str = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: string | null) => (v === null ? null : BigInt(v));

export class PostgresTieredTable {
  private readonly filter = new ChangeFilter();
  private ids: Map<string, number> | null = null;
  private rolledTo: number[] | null = null;

  constructor(private readonly spec: PostgresTieredTableSpec) {}

  /** Writes the changed items' raw rows at `at` and the rollups of buckets closed by then, in one transaction. */
  async write(pool: pg.Pool, items: readonly SeriesItem[], at: number): Promise<void> {
    const { points, valueColumns } = this.spec;
    // One row per key: an upsert may not touch the same row twice in one statement.
    const changed = [...new Map(this.filter.listChanged(items).map((i) => [i.key, i])).values()];
    const rolledTo = [...(await this.readRolledTo(pool))];
    const rollups = planRollups(rolledTo, at);
    if (changed.length === 0 && rollups.length === 0) return;
    const cols = valueColumns.join(", ");
    const updates = valueColumns.map((c) => `${c} = excluded.${c}`).join(", ");
    try {
      await inTransaction(pool, async (client) => {
        await this.runRollups(client, rollups);
        const ids = await this.listIds(client, changed);
        const width = valueColumns.length + 1;
        const placeholders = valueColumns.map((_, i) => `$${i + 2}::bigint[]`).join(", ");
        const names = valueColumns.map((_, i) => `v${i}`);
        for (let i = 0; i < changed.length; i += rowsPerStatement) {
          const rows = changed.slice(i, i + rowsPerStatement).map((item, j) => [ids[i + j], ...item.values.map(str)]);
          await client.query(
            `INSERT INTO ${points} (series, tier, at, ${cols}) SELECT s, 0, $${width + 1}::bigint, ${names.join(", ")}
             FROM unnest($1::bigint[], ${placeholders}) AS u(s, ${names.join(", ")})
             ON CONFLICT (series, tier, at) DO UPDATE SET ${updates}`,
            [...transpose(rows, width), at],
          );
        }
      });
    } catch (err) {
      this.ids = null;
      throw err;
    }
    this.rolledTo = rolledTo;
    this.filter.remember(changed);
  }

  /** The series whose key columns start with `where`, with their keys. */
  async findSeries(pool: pg.Pool, where: readonly (string | number)[]): Promise<{ id: number; key: Record<string, string | number> }[]> {
    const { series, keyColumns } = this.spec;
    const filter = keyColumns.slice(0, where.length).map((c, i) => `${c} = $${i + 1}`).join(" AND ");
    const rows = await queryRows<Record<string, string | number>>(pool, `SELECT id, ${keyColumns.join(", ")} FROM ${series} WHERE ${filter}`, [...where]);
    return rows.map((r) => ({ id: Number(r.id), key: r }));
  }

  /** Each series' points over [from, to], oldest first, the last value before `from` carried to `from` (tiers.ts). */
  async read(pool: pg.Pool, ids: readonly number[], from: number, to: number): Promise<Map<number, { at: number; values: (bigint | null)[] }[]>> {
    const { points, valueColumns } = this.spec;
    const cols = valueColumns.join(", ");
    const result = new Map<number, { at: number; values: (bigint | null)[] }[]>();
    if (ids.length === 0) return result;
    const oldest = await queryRows<{ series: string; tier: number; at: string }>(
      pool,
      `SELECT series, tier, MIN(at) AS at FROM ${points} WHERE series = ANY($1::bigint[]) GROUP BY series, tier`,
      [ids],
    );
    const oldestOf = groupBySeries(oldest);
    const bounds = new Map(ids.map((id) => {
      const own = oldestOf.get(id) ?? [];
      return [id, listTierBounds(tiers.map((_, tier) => {
        const row = own.find((r) => r.tier === tier);
        return row === undefined ? undefined : Number(row.at);
      }), to)];
    }));
    type Row = Record<string, string | null> & { series: string; tier: number; at: string };
    const toRow = (r: Row): TierRow<(bigint | null)[]> => ({ tier: r.tier, at: Number(r.at), values: valueColumns.map((c) => big(r[c] ?? null)) });
    const inRange = await queryRows<Row>(pool, `SELECT series, tier, at, ${cols} FROM ${points} WHERE series = ANY($1::bigint[]) AND at >= $2 AND at <= $3`, [ids, from, to]);
    const wanted = ids.flatMap((id) => tiers.map((_, tier) => [id, tier, Math.min(from, bounds.get(id)![tier]!)]));
    const previous = await queryRows<Row>(
      pool,
      `SELECT b.series, b.tier, p.at, ${valueColumns.map((c) => `p.${c}`).join(", ")}
       FROM unnest($1::bigint[], $2::smallint[], $3::bigint[]) AS b(series, tier, bound)
       CROSS JOIN LATERAL (SELECT at, ${cols} FROM ${points} WHERE series = b.series AND tier = b.tier AND at < b.bound ORDER BY at DESC LIMIT 1) AS p`,
      transpose(wanted, 3),
    );
    const [newest] = await queryRows<{ at: string | null }>(pool, `SELECT MAX(at) AS at FROM ${points} WHERE tier = 0`);
    const newestCycle = newest?.at == null ? null : Number(newest.at);
    const rowsOf = groupBySeries(inRange);
    const previousOf = groupBySeries(previous);
    for (const id of ids) result.set(id, mergeTierRows((rowsOf.get(id) ?? []).map(toRow), (previousOf.get(id) ?? []).map(toRow), bounds.get(id)!, { from, to, newestCycle }));
    return result;
  }

  /** Drops each tier's rows older than its retention, keeping every series' newest coarsest row; rolls up first (SQLite's). */
  async prune(pool: pg.Pool, client: pg.PoolClient, now: number): Promise<void> {
    const { points } = this.spec;
    const rolledTo = [...(await this.readRolledTo(pool))];
    await this.runRollups(client, planRollups(rolledTo, now));
    this.rolledTo = rolledTo;
    for (let tier = 0; tier < coarsestTier; tier++) {
      await client.query(`DELETE FROM ${points} WHERE tier = $1 AND at < $2`, [tier, now - tiers[tier]!.retentionMs]);
    }
    await client.query(
      `DELETE FROM ${points} AS t WHERE tier = $1 AND at < $2
       AND at < (SELECT MAX(p.at) FROM ${points} AS p WHERE p.series = t.series AND p.tier = $1)`,
      [coarsestTier, now - tiers[coarsestTier]!.retentionMs],
    );
  }

  /** Rolls each bucket's last row per series into the coarser tier. */
  private async runRollups(client: pg.PoolClient, rollups: readonly Rollup[]): Promise<void> {
    const { points, valueColumns } = this.spec;
    const cols = valueColumns.join(", ");
    const updates = valueColumns.map((c) => `${c} = excluded.${c}`).join(", ");
    for (const r of rollups) {
      await client.query(
        `INSERT INTO ${points} (series, tier, at, ${cols})
         SELECT DISTINCT ON (series, at / $2::bigint) series, $1::smallint, (at / $2::bigint) * $2::bigint, ${cols}
         FROM ${points} WHERE tier = $1::smallint - 1 AND at >= $3 AND at < $4 ORDER BY series, at / $2::bigint, at DESC
         ON CONFLICT (series, tier, at) DO UPDATE SET ${updates}`,
        [r.tier, tiers[r.tier]!.widthMs, r.from, r.to],
      );
    }
  }

  /** Each tier's rollup progress: after a restart, the end of its newest bucket (the older ones were rolled). */
  private async readRolledTo(pool: pg.Pool): Promise<number[]> {
    if (this.rolledTo !== null) return this.rolledTo;
    const rows = await queryRows<{ tier: number; at: string }>(pool, `SELECT tier, MAX(at) AS at FROM ${this.spec.points} WHERE tier > 0 GROUP BY tier`);
    this.rolledTo = tiers.map((t, tier) => {
      const row = rows.find((r) => r.tier === tier);
      return row === undefined ? 0 : Number(row.at) + t.widthMs;
    });
    return this.rolledTo;
  }

  /** The ids of the items' series, in order, creating the missing ones. */
  private async listIds(client: pg.PoolClient, items: readonly SeriesItem[]): Promise<number[]> {
    const { series, keyColumns, keyTypes } = this.spec;
    const keyList = keyColumns.join(", ");
    const remember = (rows: Record<string, string | number>[]) => {
      for (const r of rows) this.ids!.set(seriesKey(keyColumns.map((c) => r[c]!)), Number(r.id));
    };
    if (this.ids === null) {
      this.ids = new Map();
      remember((await client.query<Record<string, string | number>>(`SELECT id, ${keyList} FROM ${series}`)).rows);
    }
    const missing = items.filter((i) => !this.ids!.has(i.key));
    const unnest = keyTypes.map((t, i) => `$${i + 1}::${t}[]`).join(", ");
    for (let i = 0; i < missing.length; i += rowsPerStatement) {
      const keys = transpose(missing.slice(i, i + rowsPerStatement).map((m) => m.keyValues), keyColumns.length);
      await client.query(`INSERT INTO ${series} (${keyList}) SELECT * FROM unnest(${unnest}) ON CONFLICT DO NOTHING`, keys);
      remember((await client.query<Record<string, string | number>>(`SELECT id, ${keyList} FROM ${series} WHERE (${keyList}) IN (SELECT * FROM unnest(${unnest}))`, keys)).rows);
    }
    return items.map((i) => this.ids!.get(i.key)!);
  }
}

function groupBySeries<R extends { series: string }>(rows: readonly R[]): Map<number, R[]> {
  const groups = new Map<number, R[]>();
  for (const r of rows) {
    const id = Number(r.series);
    const list = groups.get(id);
    if (list) list.push(r);
    else groups.set(id, [r]);
  }
  return groups;
}
