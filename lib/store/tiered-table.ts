import type { Statement } from "better-sqlite3";
import type { SqliteDb } from "./db";
import { decodeCycle, decodeNewestPoint, decodePack, encodeCycles, encodePack, findCycleEntry, type PackPoint } from "./sample-pack";
import { hasRollupDue, listPackBuckets, planRollupSlices, resumeRollup, type RollupProgress, type RollupSlice } from "./rollup-plan";
import { ChangeFilter, type ChangedRows, listKeyValues, type SeriesBatch, SeriesIds } from "./series-batch";
import {
  coarsestTier, countChunksToPack, listStalePackLimit, type PackRow, packOf, packStagedSamples, rollUpPacks,
  selectSeriesPoints, type StagedSample, stagedChunkSize, type TierRow, tiers,
} from "./tiers";

/**
 * A tiered, change-only, packed series table of the SQLite store (tiers.ts, migration 7): `<series>` maps a key (key
 * columns) to an integer id; `<staged>` holds each write's changed samples as cycle blobs per chunk of ids until their
 * chunk is packed after their 5-minute bucket closed; `<packs>` holds (series, tier, bucket, data) packs, rolled up
 * a chunk at a time (rollup-plan.ts);
 * `series_state` the newest write and prune.
 */
interface TieredTableSpec {
  series: string;
  staged: string;
  packs: string;
  keyColumns: readonly string[];
  valueColumns: readonly string[];
}

type Point = { at: number; values: (bigint | null)[] };

export class SqliteTieredTable {
  private readonly filter: ChangeFilter;
  private ids: SeriesIds | null = null;
  private rollups: RollupProgress[] | null = null;
  /** The time of the latest write or prune: closed buckets are packed in proportion to the time since (countChunksToPack). */
  private lastAt: number | null = null;

  constructor(
    private readonly db: SqliteDb,
    private readonly spec: TieredTableSpec,
  ) {
    this.filter = new ChangeFilter(spec.valueColumns.length);
  }

  /** Stages the changed rows' samples at `at`, packs and rolls up this write's slice of the closed buckets, in one transaction. */
  write(batch: SeriesBatch, at: number): void {
    const rollups = this.copyRollups();
    let changed: ChangedRows;
    try {
      changed = this.db.transaction(() => {
        this.packAndRollUp(rollups, at);
        // A series not known yet is one never written: it is changed, and its id is created here.
        const rows = this.filter.listChanged(batch, this.listIds(batch));
        if (rows.ids.length === 0) return rows;
        const insert = this.db.prepare(`INSERT INTO ${this.spec.staged} (chunk, at, data) VALUES (?, ?, ?)`);
        for (const { chunk, data } of encodeCycles(rows, batch.values, stagedChunkSize)) insert.run(chunk, at, data);
        this.db
          .prepare(
            `INSERT INTO series_state (points, newest_at) VALUES (?, ?)
             ON CONFLICT (points) DO UPDATE SET newest_at = MAX(IFNULL(newest_at, 0), excluded.newest_at)`,
          )
          .run(this.spec.packs, at);
        return rows;
      })();
    } catch (err) {
      // Ids handed out inside the rolled-back transaction do not exist: read them again next time.
      this.ids = null;
      throw err;
    }
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? at, at);
    this.filter.remember(batch, changed);
  }

  /** The series ids of the rows whose key columns equal `where` (a prefix of the key columns), with their keys. */
  findSeries(where: readonly (string | number)[]): { id: number; key: Record<string, string | number> }[] {
    const { series, keyColumns } = this.spec;
    const filter = keyColumns.slice(0, where.length).map((c) => `${c} = ?`).join(" AND ");
    const rows = this.db.prepare(`SELECT id, ${keyColumns.join(", ")} FROM ${series} WHERE ${filter}`).all(...where) as Record<string, string | number>[];
    return rows.map((r) => ({ id: Number(r.id), key: r }));
  }

  /** Each series' points over [from, to], oldest first, the last value before `from` carried to `from` (tiers.ts). */
  read(ids: readonly number[], from: number, to: number): Map<number, Point[]> {
    const width = this.spec.valueColumns.length;
    const stored = new Map<number, TierRow<(bigint | null)[]>[]>(ids.map((id) => [id, []]));
    const packs = this.db.prepare(`SELECT tier, data FROM ${this.spec.packs} WHERE series = ?`);
    for (const id of ids) {
      const rows = stored.get(id)!;
      for (const p of packs.all(id) as { tier: number; data: Buffer }[]) {
        for (const point of decodePack(p.data, width)) rows.push({ tier: p.tier, at: point.at, values: point.values });
      }
    }
    const staged = this.db.prepare(`SELECT at, data FROM ${this.spec.staged} WHERE chunk = ? ORDER BY id`);
    for (const chunk of new Set(ids.map((id) => Math.floor(id / stagedChunkSize)))) {
      const members = ids.filter((id) => Math.floor(id / stagedChunkSize) === chunk);
      for (const row of staged.all(chunk) as { at: number; data: Buffer }[]) {
        for (const id of members) {
          const values = findCycleEntry(row.data, id, width);
          if (values === undefined) continue;
          // A later write at the same time replaces the earlier sample (and a packed one: late writes).
          const rows = stored.get(id)!;
          const same = rows.findIndex((r) => r.tier === 0 && r.at === row.at);
          if (same >= 0) rows.splice(same, 1);
          rows.push({ tier: 0, at: row.at, values });
        }
      }
    }
    const state = this.db.prepare("SELECT newest_at, pruned_at FROM series_state WHERE points = ?").get(this.spec.packs) as
      | { newest_at: number | null; pruned_at: number | null }
      | undefined;
    const known = { newestCycle: state?.newest_at ?? null, prunedAt: state?.pruned_at ?? null };
    return new Map(ids.map((id) => [id, selectSeriesPoints(stored.get(id)!, from, to, known)]));
  }

  /**
   * Packs its slice of the closed buckets and rolls up, then drops each tier's packs past its window, keeping every
   * series' newest daily pack (its newest point is the carried-forward value), and records `now` for the readers.
   */
  prune(now: number): void {
    const { packs } = this.spec;
    const rollups = this.copyRollups();
    this.db.transaction(() => {
      this.packAndRollUp(rollups, now);
      for (let tier = 0; tier < coarsestTier; tier++) {
        this.db.prepare(`DELETE FROM ${packs} WHERE tier = ? AND bucket <= ?`).run(tier, listStalePackLimit(tier, now));
      }
      this.db
        .prepare(
          `DELETE FROM ${packs} WHERE tier = :tier AND bucket <= :stale
           AND bucket < (SELECT MAX(p.bucket) FROM ${packs} AS p WHERE p.series = ${packs}.series AND p.tier = :tier)`,
        )
        .run({ tier: coarsestTier, stale: listStalePackLimit(coarsestTier, now) });
      this.db
        .prepare(
          `INSERT INTO series_state (points, pruned_at) VALUES (?, ?)
           ON CONFLICT (points) DO UPDATE SET pruned_at = MAX(IFNULL(pruned_at, 0), excluded.pruned_at)`,
        )
        .run(packs, now);
    })();
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? now, now);
  }

  /**
   * Packs this call's slice of the chunks holding staged samples of closed buckets (oldest first; countChunksToPack),
   * then rolls up this call's slice of the chunks whose coarse packs closed (planRollupSlices).
   */
  private packAndRollUp(rollups: RollupProgress[], at: number): void {
    const open = packOf(0, at);
    const pending = this.db
      .prepare(`SELECT chunk, MIN(at) AS oldest FROM ${this.spec.staged} WHERE at < ? GROUP BY chunk ORDER BY oldest, chunk`)
      .all(open) as { chunk: number; oldest: number }[];
    const count = countChunksToPack(pending.map((p) => p.oldest), this.lastAt, at);
    for (const p of pending.slice(0, count)) this.packChunk(p.chunk, open);
    if (!hasRollupDue(rollups, at)) return;
    const staged = new Map(pending.slice(count).map((p) => [p.chunk, packOf(0, p.oldest)]));
    const maxId = this.db.prepare(`SELECT MAX(id) FROM ${this.spec.series}`).pluck().get() as number | null;
    const chunks = maxId === null ? 0 : Math.floor(maxId / stagedChunkSize) + 1;
    for (const slice of planRollupSlices(rollups, chunks, (c) => staged.get(c) ?? open, this.lastAt, at)) this.rollUpSlice(slice);
  }

  /** Moves one chunk's staged samples before `to` (the open bucket's start) into raw packs. */
  private packChunk(chunk: number, to: number): void {
    const { staged, packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const samples: StagedSample[] = [];
    const rows = this.db.prepare(`SELECT at, data FROM ${staged} WHERE chunk = ? AND at < ? ORDER BY id`).all(chunk, to) as { at: number; data: Buffer }[];
    for (const row of rows) for (const e of decodeCycle(row.data, width)) samples.push({ series: e.id, at: row.at, values: e.values });
    // A bucket this chunk was packed for already (a late write) has packs: merge with them.
    const existing = new Map<string, PackPoint[]>();
    const select = this.db.prepare(`SELECT series, data FROM ${packs} WHERE tier = 0 AND bucket = ? AND series >= ? AND series < ?`);
    for (const bucket of new Set(samples.map((s) => packOf(0, s.at)))) {
      for (const row of select.all(bucket, chunk * stagedChunkSize, (chunk + 1) * stagedChunkSize) as { series: number; data: Buffer }[]) {
        existing.set(`${row.series}:${bucket}`, decodePack(row.data, width));
      }
    }
    this.insertPacks(packStagedSamples(samples, existing));
    this.db.prepare(`DELETE FROM ${staged} WHERE chunk = ? AND at < ?`).run(chunk, to);
  }

  /** Rolls the newest point of each finer pack of one chunk's series into the coarser tier's packs. */
  private rollUpSlice(slice: RollupSlice): void {
    const { packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const lo = slice.chunk * stagedChunkSize;
    // One bucket at a time: the primary key (tier, bucket, series) then finds the chunk's packs by a range.
    const select = this.db.prepare(`SELECT series, data FROM ${packs} WHERE tier = ? AND bucket = ? AND series >= ? AND series < ?`);
    const oldest = this.db.prepare(`SELECT MIN(bucket) FROM ${packs} WHERE tier = ?`).pluck().get(slice.tier - 1) as number | null;
    if (oldest === null) return;
    const finer: { series: number; bucket: number; newest: PackPoint }[] = [];
    for (const bucket of listPackBuckets(slice.tier - 1, slice.from, slice.to, oldest)) {
      for (const p of select.all(slice.tier - 1, bucket, lo, lo + stagedChunkSize) as { series: number; data: Buffer }[]) {
        finer.push({ series: p.series, bucket, newest: decodeNewestPoint(p.data, width) });
      }
    }
    this.insertPacks(rollUpPacks(slice.tier, finer));
  }

  private insertPacks(rows: readonly PackRow[]): void {
    const insert = this.db.prepare(`INSERT OR REPLACE INTO ${this.spec.packs} (series, tier, bucket, data) VALUES (?, ?, ?, ?)`);
    for (const row of rows) insert.run(row.series, row.tier, row.bucket, encodePack(row.points));
  }

  /** A copy of each tier's rollup progress (kept once the transaction commits); after a restart, resumeRollup's. */
  private copyRollups(): RollupProgress[] {
    if (this.rollups === null) {
      const newest = this.db.prepare(`SELECT MAX(bucket) FROM ${this.spec.packs} WHERE tier = ?`).pluck();
      const highest = this.db.prepare(`SELECT MAX(series) FROM ${this.spec.packs} WHERE tier = ? AND bucket = ?`).pluck();
      this.rollups = tiers.map((_, tier) => {
        const bucket = tier === 0 ? null : (newest.get(tier) as number | null);
        return resumeRollup(tier, bucket, bucket === null ? null : (highest.get(tier, bucket) as number | null));
      });
    }
    return this.rollups.map((p) => ({ rolledTo: p.rolledTo, partial: p.partial === null ? null : { ...p.partial } }));
  }

  /** Each batch row's series id, creating the series not known yet (in the caller's transaction). */
  private listIds(batch: SeriesBatch): number[] {
    const { series, keyColumns } = this.spec;
    let known = this.ids;
    if (known === null) {
      known = new SeriesIds();
      const rows = this.db.prepare(`SELECT id, ${keyColumns.join(", ")} FROM ${series}`).raw(true).all() as [number, ...(string | number)[]][];
      for (const [id, ...key] of rows) known.add(key, id);
      this.ids = known;
    }
    const count = batch.keys[0]!.length;
    const ids: number[] = new Array<number>(count);
    const insertSql = `INSERT INTO ${series} (${keyColumns.join(", ")}) VALUES (${keyColumns.map(() => "?").join(", ")})`;
    let insert: Statement | null = null;
    for (let i = 0; i < count; i++) {
      let id = known.find(batch.keys, i);
      if (id === undefined) {
        insert ??= this.db.prepare(insertSql);
        const key = listKeyValues(batch.keys, i);
        id = Number(insert.run(...key).lastInsertRowid);
        known.add(key, id);
      }
      ids[i] = id;
    }
    known.keep(batch.keys, ids);
    return ids;
  }
}
