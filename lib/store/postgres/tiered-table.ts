import type pg from "pg";
import { decodeCycle, decodeNewestPoint, decodePack, encodeCycles, encodePack, findCycleEntry, type PackPoint } from "../sample-pack";
import { hasRollupDue, listPackBuckets, planRollupSlices, resumeRollup, type RollupProgress, type RollupSlice } from "../rollup-plan";
import { ChangeFilter, type ChangedRows, listKeyValues, type SeriesBatch, SeriesIds } from "../series-batch";
import {
  coarsestTier, countChunksToPack, listStalePackLimit, type PackRow, packOf, packStagedSamples, rollUpPacks,
  selectSeriesPoints, type StagedSample, stagedChunkSize, type TierRow, tiers,
} from "../tiers";
import { inTransaction, queryRows } from "./connection";
import { rowsPerStatement, transpose } from "./series";
import { StagedBlobs } from "./staged-blobs";

/** A tiered, change-only, packed series table of the PostgreSQL store: the SQLite store's (lib/store/tiered-table.ts). */
interface PostgresTieredTableSpec {
  series: string;
  staged: string;
  packs: string;
  keyColumns: readonly string[];
  /** Each key column's type, for unnest (text, int). */
  keyTypes: readonly string[];
  valueColumns: readonly string[];
}

type Point = { at: number; values: (bigint | null)[] };

export class PostgresTieredTable {
  private readonly filter: ChangeFilter;
  /** The staged blobs this process read (they never change: staged-blobs.ts). */
  private readonly staged: StagedBlobs;
  private ids: SeriesIds | null = null;
  private rollups: RollupProgress[] | null = null;
  /** The time of the latest write or prune: closed buckets are packed in proportion to the time since (countChunksToPack). */
  private lastAt: number | null = null;

  constructor(private readonly spec: PostgresTieredTableSpec) {
    this.filter = new ChangeFilter(spec.valueColumns.length);
    this.staged = new StagedBlobs(spec.staged);
  }

  /** Stages the changed rows' samples at `at`, packs and rolls up this write's slice of the closed buckets, in one transaction. */
  async write(pool: pg.Pool, batch: SeriesBatch, at: number): Promise<void> {
    const rollups = await this.copyRollups(pool);
    let changed: ChangedRows = { ids: [], rows: [] };
    try {
      await inTransaction(pool, async (client) => {
        await this.packAndRollUp(client, rollups, at);
        // A series not known yet is one never written: it is changed, and its id is created here.
        changed = this.filter.listChanged(batch, await this.listIds(client, batch));
        if (changed.ids.length === 0) return;
        const blobs = encodeCycles(changed, batch.values, stagedChunkSize);
        await client.query(`INSERT INTO ${this.spec.staged} (chunk, at, data) SELECT c, $3::bigint, d FROM unnest($1::int[], $2::bytea[]) AS u(c, d)`, [
          blobs.map((b) => b.chunk),
          blobs.map((b) => b.data),
          at,
        ]);
        await client.query(
          `INSERT INTO series_state (points, newest_at) VALUES ($1, $2)
           ON CONFLICT (points) DO UPDATE SET newest_at = GREATEST(series_state.newest_at, excluded.newest_at)`,
          [this.spec.packs, at],
        );
      });
    } catch (err) {
      this.ids = null;
      throw err;
    }
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? at, at);
    this.filter.remember(batch, changed);
  }

  /** The series whose key columns start with `where`, with their keys. */
  async findSeries(pool: pg.Pool, where: readonly (string | number)[]): Promise<{ id: number; key: Record<string, string | number> }[]> {
    const { series, keyColumns } = this.spec;
    const filter = keyColumns.slice(0, where.length).map((c, i) => `${c} = $${i + 1}`).join(" AND ");
    const rows = await queryRows<Record<string, string | number>>(pool, `SELECT id, ${keyColumns.join(", ")} FROM ${series} WHERE ${filter}`, [...where]);
    return rows.map((r) => ({ id: Number(r.id), key: r }));
  }

  /** Each series' points over [from, to], oldest first, the last value before `from` carried to `from` (tiers.ts). */
  async read(pool: pg.Pool, ids: readonly number[], from: number, to: number): Promise<Map<number, Point[]>> {
    const width = this.spec.valueColumns.length;
    const result = new Map<number, Point[]>();
    if (ids.length === 0) return result;
    const stored = new Map<number, TierRow<(bigint | null)[]>[]>(ids.map((id) => [id, []]));
    const packs = await queryRows<{ series: string; tier: number; data: Buffer }>(
      pool,
      `SELECT series, tier, data FROM ${this.spec.packs} WHERE series = ANY($1::bigint[])`,
      [ids],
    );
    for (const p of packs) {
      const rows = stored.get(Number(p.series))!;
      for (const point of decodePack(p.data, width)) rows.push({ tier: p.tier, at: point.at, values: point.values });
    }
    for (const [id, times] of await this.readStagedValues(pool, ids)) {
      // A staged sample replaces a packed one of the same time (late writes).
      const rows = stored.get(id)!.filter((r) => r.tier !== 0 || !times.has(r.at));
      for (const [at, values] of times) rows.push({ tier: 0, at, values });
      stored.set(id, rows);
    }
    const [state] = await queryRows<{ newest_at: string | null; pruned_at: string | null }>(
      pool,
      "SELECT newest_at, pruned_at FROM series_state WHERE points = $1",
      [this.spec.packs],
    );
    const known = {
      newestCycle: state?.newest_at == null ? null : Number(state.newest_at),
      prunedAt: state?.pruned_at == null ? null : Number(state.pruned_at),
    };
    for (const id of ids) result.set(id, selectSeriesPoints(stored.get(id)!, from, to, known));
    return result;
  }

  /**
   * Each series' staged values by time, in the order written: a later write at the same time replaces the earlier
   * sample (deleted, then set: it stands where the later write does).
   */
  private async readStagedValues(pool: pg.Pool, ids: readonly number[]): Promise<Map<number, Map<number, (bigint | null)[]>>> {
    const width = this.spec.valueColumns.length;
    const byChunk = new Map<number, number[]>();
    for (const id of ids) {
      const chunk = Math.floor(id / stagedChunkSize);
      const list = byChunk.get(chunk);
      if (list) list.push(id);
      else byChunk.set(chunk, [id]);
    }
    const staged = new Map<number, Map<number, (bigint | null)[]>>();
    for (const blob of await this.staged.read(pool, [...byChunk.keys()])) {
      for (const id of byChunk.get(blob.chunk) ?? []) {
        const values = findCycleEntry(blob.data, id, width);
        if (values === undefined) continue;
        let times = staged.get(id);
        if (!times) staged.set(id, (times = new Map()));
        times.delete(blob.at);
        times.set(blob.at, values);
      }
    }
    return staged;
  }

  /** Packs its slice of the closed buckets and rolls up, drops packs past their window (SQLite's), records `now` for readers. */
  async prune(pool: pg.Pool, client: pg.PoolClient, now: number): Promise<void> {
    const { packs } = this.spec;
    const rollups = await this.copyRollups(pool);
    await this.packAndRollUp(client, rollups, now);
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? now, now);
    for (let tier = 0; tier < coarsestTier; tier++) {
      await client.query(`DELETE FROM ${packs} WHERE tier = $1 AND bucket <= $2`, [tier, listStalePackLimit(tier, now)]);
    }
    await client.query(
      `DELETE FROM ${packs} AS t WHERE tier = $1 AND bucket <= $2
       AND bucket < (SELECT MAX(p.bucket) FROM ${packs} AS p WHERE p.series = t.series AND p.tier = $1)`,
      [coarsestTier, listStalePackLimit(coarsestTier, now)],
    );
    await client.query(
      `INSERT INTO series_state (points, pruned_at) VALUES ($1, $2)
       ON CONFLICT (points) DO UPDATE SET pruned_at = GREATEST(series_state.pruned_at, excluded.pruned_at)`,
      [packs, now],
    );
  }

  /**
   * Packs this call's slice of the chunks holding staged samples of closed buckets (oldest first; countChunksToPack),
   * then rolls up this call's slice of the chunks whose coarse packs closed (planRollupSlices).
   */
  private async packAndRollUp(client: pg.PoolClient, rollups: RollupProgress[], at: number): Promise<void> {
    const open = packOf(0, at);
    const pending = (
      await client.query<{ chunk: number; oldest: string }>(
        `SELECT chunk, MIN(at) AS oldest FROM ${this.spec.staged} WHERE at < $1 GROUP BY chunk ORDER BY oldest, chunk`,
        [open],
      )
    ).rows.map((r) => ({ chunk: r.chunk, oldest: Number(r.oldest) }));
    const count = countChunksToPack(pending.map((p) => p.oldest), this.lastAt, at);
    for (const p of pending.slice(0, count)) await this.packChunk(client, p.chunk, open);
    if (!hasRollupDue(rollups, at)) return;
    const staged = new Map(pending.slice(count).map((p) => [p.chunk, packOf(0, p.oldest)]));
    const [{ max }] = (await client.query<{ max: string | null }>(`SELECT MAX(id) AS max FROM ${this.spec.series}`)).rows as [{ max: string | null }];
    const chunks = max === null ? 0 : Math.floor(Number(max) / stagedChunkSize) + 1;
    for (const slice of planRollupSlices(rollups, chunks, (c) => staged.get(c) ?? open, this.lastAt, at)) await this.rollUpSlice(client, slice);
  }

  /** Moves one chunk's staged samples before `to` (the open bucket's start) into raw packs. */
  private async packChunk(client: pg.PoolClient, chunk: number, to: number): Promise<void> {
    const { staged, packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const rows = (await client.query<{ at: string; data: Buffer }>(`SELECT at, data FROM ${staged} WHERE chunk = $1 AND at < $2 ORDER BY id`, [chunk, to])).rows;
    const samples: StagedSample[] = [];
    for (const row of rows) for (const e of decodeCycle(row.data, width)) samples.push({ series: e.id, at: Number(row.at), values: e.values });
    // A bucket this chunk was packed for already (a late write) has packs: merge with them.
    const existing = new Map<string, PackPoint[]>();
    const found = await client.query<{ series: string; bucket: string; data: Buffer }>(
      `SELECT series, bucket, data FROM ${packs} WHERE tier = 0 AND bucket = ANY($1::bigint[]) AND series >= $2 AND series < $3`,
      [[...new Set(samples.map((s) => packOf(0, s.at)))], chunk * stagedChunkSize, (chunk + 1) * stagedChunkSize],
    );
    for (const r of found.rows) existing.set(`${Number(r.series)}:${Number(r.bucket)}`, decodePack(r.data, width));
    await this.insertPacks(client, packStagedSamples(samples, existing));
    await client.query(`DELETE FROM ${staged} WHERE chunk = $1 AND at < $2`, [chunk, to]);
  }

  /** Rolls the newest point of each finer pack of one chunk's series into the coarser tier's packs. */
  private async rollUpSlice(client: pg.PoolClient, slice: RollupSlice): Promise<void> {
    const { packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const lo = slice.chunk * stagedChunkSize;
    const [{ min }] = (await client.query<{ min: string | null }>(`SELECT MIN(bucket) AS min FROM ${packs} WHERE tier = $1`, [slice.tier - 1]))
      .rows as [{ min: string | null }];
    if (min === null) return;
    const { rows } = await client.query<{ series: string; bucket: string; data: Buffer }>(
      `SELECT series, bucket, data FROM ${packs} WHERE tier = $1 AND bucket = ANY($2::bigint[]) AND series >= $3 AND series < $4`,
      [slice.tier - 1, listPackBuckets(slice.tier - 1, slice.from, slice.to, Number(min)), lo, lo + stagedChunkSize],
    );
    const finer = rows.map((p) => ({ series: Number(p.series), bucket: Number(p.bucket), newest: decodeNewestPoint(p.data, width) }));
    await this.insertPacks(client, rollUpPacks(slice.tier, finer));
  }

  private async insertPacks(client: pg.PoolClient, rows: readonly PackRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += rowsPerStatement) {
      const chunk = rows.slice(i, i + rowsPerStatement).map((r) => [r.series, r.tier, r.bucket, encodePack(r.points)]);
      await client.query(
        `INSERT INTO ${this.spec.packs} (series, tier, bucket, data) SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bytea[])
         ON CONFLICT (tier, bucket, series) DO UPDATE SET data = excluded.data`,
        transpose(chunk, 4),
      );
    }
  }

  /** A copy of each tier's rollup progress (kept once the transaction commits); after a restart, resumeRollup's. */
  private async copyRollups(pool: pg.Pool): Promise<RollupProgress[]> {
    if (this.rollups === null) {
      const { packs } = this.spec;
      const rows = await queryRows<{ tier: number; bucket: string; series: string }>(
        pool,
        `SELECT n.tier, n.bucket, (SELECT MAX(p.series) FROM ${packs} AS p WHERE p.tier = n.tier AND p.bucket = n.bucket) AS series
         FROM (SELECT tier, MAX(bucket) AS bucket FROM ${packs} WHERE tier > 0 GROUP BY tier) AS n`,
      );
      this.rollups = tiers.map((_, tier) => {
        const row = tier === 0 ? undefined : rows.find((r) => r.tier === tier);
        return resumeRollup(tier, row === undefined ? null : Number(row.bucket), row === undefined ? null : Number(row.series));
      });
    }
    return this.rollups.map((p) => ({ rolledTo: p.rolledTo, partial: p.partial === null ? null : { ...p.partial } }));
  }

  /** Each batch row's series id, creating the missing series. */
  private async listIds(client: pg.PoolClient, batch: SeriesBatch): Promise<number[]> {
    const { series, keyColumns, keyTypes } = this.spec;
    const keyList = keyColumns.join(", ");
    const known = this.ids ?? new SeriesIds();
    const remember = (rows: Record<string, string | number>[]) => {
      for (const r of rows) known.add(keyColumns.map((c) => r[c]!), Number(r.id));
    };
    if (this.ids === null) {
      remember((await client.query<Record<string, string | number>>(`SELECT id, ${keyList} FROM ${series}`)).rows);
      this.ids = known;
    }
    const count = batch.keys[0]!.length;
    const missing: (string | number)[][] = [];
    for (let i = 0; i < count; i++) {
      if (known.find(batch.keys, i) === undefined) missing.push(listKeyValues(batch.keys, i));
    }
    const unnest = keyTypes.map((t, i) => `$${i + 1}::${t}[]`).join(", ");
    for (let i = 0; i < missing.length; i += rowsPerStatement) {
      const keys = transpose(missing.slice(i, i + rowsPerStatement), keyColumns.length);
      await client.query(`INSERT INTO ${series} (${keyList}) SELECT * FROM unnest(${unnest}) ON CONFLICT DO NOTHING`, keys);
      remember((await client.query<Record<string, string | number>>(`SELECT id, ${keyList} FROM ${series} WHERE (${keyList}) IN (SELECT * FROM unnest(${unnest}))`, keys)).rows);
    }
    const ids = new Array<number>(count);
    for (let i = 0; i < count; i++) ids[i] = known.find(batch.keys, i)!;
    known.keep(batch.keys, ids);
    return ids;
  }
}
