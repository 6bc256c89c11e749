import type { Dialect } from "./engine/dialect";
import { all, insertRows, readStaged, run, transaction, type Work } from "./engine/steps";
import { decodeNewestPoint, decodePack, encodePack, findCycleEntry, type PackPoint } from "./sample-pack";
import { hasRollupDue, listPackBuckets, planRollupSlices, resumeRollup, type RollupProgress, type RollupSlice } from "./rollup-plan";
import { packStagedBlobs } from "./staged-packs";
import { CycleChanges } from "./cycle-changes";
import { listKeyValues, type SeriesBatch, SeriesIds } from "./series-batch";
import {
  coarsestTier, countChunksToPack, listStalePackLimit, type PackRow, packOf, rollUpPacks,
  selectSeriesPoints, stagedChunkSize, type TierRow, tiers,
} from "./tiers";

/**
 * A tiered, change-only, packed series table (tiers.ts, migrations 7 and 11), the same code on both stores (store
 * engine: engine/steps.ts): `<series>` maps a key (key columns) to an integer id; `<staged>` holds each write's changed
 * samples as cycle blobs per chunk of ids until their chunk is packed after their 5-minute bucket closed; `<packs>`
 * holds (series, tier, bucket, data) packs, rolled up a chunk at a time (rollup-plan.ts); `series_state` the newest
 * write and prune.
 */
export interface TieredTableSpec {
  series: string;
  staged: string;
  packs: string;
  keyColumns: readonly string[];
  /** Each key column's type (PostgreSQL's bulk inserts and key matches). */
  keyTypes: readonly ("text" | "int")[];
  valueColumns: readonly string[];
}

type Point = { at: number; values: (bigint | null)[] };
type Key = Record<string, string | number>;

/** int8 columns: a number from SQLite, decimal text from PostgreSQL. */
const toNumber = (value: string | number | null): number | null => (value === null ? null : Number(value));

export class TieredTable {
  private readonly changes: CycleChanges;
  private ids: SeriesIds | null = null;
  private rollups: RollupProgress[] | null = null;
  /** The time of the latest write or prune: closed buckets are packed in proportion to the time since (countChunksToPack). */
  private lastAt: number | null = null;

  constructor(
    private readonly spec: TieredTableSpec,
    private readonly dialect: Dialect,
  ) {
    this.changes = new CycleChanges(spec.valueColumns.length, stagedChunkSize);
  }

  /** Stages the changed rows' samples at `at`, packs and rolls up this write's slice of the closed buckets, in one transaction. */
  *write(batch: SeriesBatch, at: number): Work<void> {
    const rollups = yield* this.copyRollups();
    try {
      yield* transaction(() => this.stage(rollups, batch, at));
    } catch (err) {
      // Ids handed out inside the rolled-back transaction do not exist: read them again next time.
      this.ids = null;
      throw err;
    }
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? at, at);
    this.changes.remember();
  }

  private *stage(rollups: RollupProgress[], batch: SeriesBatch, at: number): Work<void> {
    const { staged, packs } = this.spec;
    yield* this.packAndRollUp(rollups, at);
    // A series not known yet is one never written: it is changed, and its id is created here.
    const blobs = this.changes.encode(batch, yield* this.listIds(batch));
    if (blobs.length === 0) return;
    yield* insertRows({
      table: staged,
      columns: [{ name: "chunk", type: "int" }, { name: "at", type: "bigint" }, { name: "data", type: "bytea" }],
      rows: blobs.map((b) => [b.chunk, at, b.data]),
    });
    yield* run(
      `INSERT INTO series_state (points, newest_at) VALUES (?, ?)
       ON CONFLICT (points) DO UPDATE SET newest_at = ${this.dialect.greatest("series_state.newest_at", "excluded.newest_at")}`,
      [packs, at],
    );
  }

  /** The series ids of the rows whose key columns equal `where` (a prefix of the key columns), with their keys. */
  *findSeries(where: readonly (string | number)[]): Work<{ id: number; key: Key }[]> {
    const { series, keyColumns } = this.spec;
    const filter = keyColumns.slice(0, where.length).map((c) => `${c} = ?`).join(" AND ");
    const rows = yield* all<Key>(`SELECT id, ${keyColumns.join(", ")} FROM ${series} WHERE ${filter}`, where);
    return rows.map((r) => ({ id: Number(r.id), key: r }));
  }

  /** Each series' points over [from, to], oldest first, the last value before `from` carried to `from` (tiers.ts). */
  *read(ids: readonly number[], from: number, to: number): Work<Map<number, Point[]>> {
    const width = this.spec.valueColumns.length;
    const result = new Map<number, Point[]>();
    if (ids.length === 0) return result;
    const stored = new Map<number, TierRow<(bigint | null)[]>[]>(ids.map((id) => [id, []]));
    const packs = yield* all<{ series: string | number; tier: number; data: Buffer }>(
      `SELECT series, tier, data FROM ${this.spec.packs} WHERE ${this.dialect.inList("series", "bigint")}`,
      [this.dialect.list(ids)],
    );
    for (const p of packs) {
      const rows = stored.get(Number(p.series))!;
      for (const point of decodePack(p.data, width)) rows.push({ tier: p.tier, at: point.at, values: point.values });
    }
    for (const [id, times] of yield* this.readStagedValues(ids)) {
      // A staged sample replaces a packed one of the same time (late writes).
      const rows = stored.get(id)!.filter((r) => r.tier !== 0 || !times.has(r.at));
      for (const [at, values] of times) rows.push({ tier: 0, at, values });
      stored.set(id, rows);
    }
    const [state] = yield* all<{ newest_at: string | number | null; pruned_at: string | number | null }>(
      "SELECT newest_at, pruned_at FROM series_state WHERE points = ?",
      [this.spec.packs],
    );
    const known = { newestCycle: toNumber(state?.newest_at ?? null), prunedAt: toNumber(state?.pruned_at ?? null) };
    for (const id of ids) result.set(id, selectSeriesPoints(stored.get(id)!, from, to, known));
    return result;
  }

  /**
   * Each series' staged values by time, in the order written: a later write at the same time replaces the earlier
   * sample (deleted, then set: it stands where the later write does).
   */
  private *readStagedValues(ids: readonly number[]): Work<Map<number, Map<number, (bigint | null)[]>>> {
    const width = this.spec.valueColumns.length;
    const byChunk = new Map<number, number[]>();
    for (const id of ids) {
      const chunk = Math.floor(id / stagedChunkSize);
      const list = byChunk.get(chunk);
      if (list) list.push(id);
      else byChunk.set(chunk, [id]);
    }
    const staged = new Map<number, Map<number, (bigint | null)[]>>();
    for (const blob of yield* readStaged(this.spec.staged, [...byChunk.keys()])) {
      const at = Number(blob.at);
      for (const id of byChunk.get(Number(blob.chunk)) ?? []) {
        const values = findCycleEntry(blob.data, id, width);
        if (values === undefined) continue;
        let times = staged.get(id);
        if (!times) staged.set(id, (times = new Map()));
        times.delete(at);
        times.set(at, values);
      }
    }
    return staged;
  }

  /**
   * Packs its slice of the closed buckets and rolls up, then drops each tier's packs past its window, keeping every
   * series' newest daily pack (its newest point is the carried-forward value), and records `now` for the readers.
   */
  *prune(now: number): Work<void> {
    const rollups = yield* this.copyRollups();
    yield* transaction(() => this.dropStalePacks(rollups, now));
    this.rollups = rollups;
    this.lastAt = Math.max(this.lastAt ?? now, now);
  }

  private *dropStalePacks(rollups: RollupProgress[], now: number): Work<void> {
    const { packs } = this.spec;
    yield* this.packAndRollUp(rollups, now);
    for (let tier = 0; tier < coarsestTier; tier++) {
      yield* run(`DELETE FROM ${packs} WHERE tier = ? AND bucket <= ?`, [tier, listStalePackLimit(tier, now)]);
    }
    yield* run(
      `DELETE FROM ${packs} AS t WHERE tier = ? AND bucket <= ?
       AND bucket < (SELECT MAX(p.bucket) FROM ${packs} AS p WHERE p.series = t.series AND p.tier = ?)`,
      [coarsestTier, listStalePackLimit(coarsestTier, now), coarsestTier],
    );
    yield* run(
      `INSERT INTO series_state (points, pruned_at) VALUES (?, ?)
       ON CONFLICT (points) DO UPDATE SET pruned_at = ${this.dialect.greatest("series_state.pruned_at", "excluded.pruned_at")}`,
      [packs, now],
    );
  }

  /**
   * Packs this call's slice of the chunks holding staged samples of closed buckets (oldest first; countChunksToPack),
   * then rolls up this call's slice of the chunks whose coarse packs closed (planRollupSlices).
   */
  private *packAndRollUp(rollups: RollupProgress[], at: number): Work<void> {
    const open = packOf(0, at);
    const pending = (
      yield* all<{ chunk: number; oldest: string | number }>(
        `SELECT chunk, MIN(at) AS oldest FROM ${this.spec.staged} WHERE at < ? GROUP BY chunk ORDER BY oldest, chunk`,
        [open],
      )
    ).map((r) => ({ chunk: r.chunk, oldest: Number(r.oldest) }));
    const count = countChunksToPack(pending.map((p) => p.oldest), this.lastAt, at);
    for (const p of pending.slice(0, count)) yield* this.packChunk(p.chunk, open);
    if (!hasRollupDue(rollups, at)) return;
    const staged = new Map(pending.slice(count).map((p) => [p.chunk, packOf(0, p.oldest)]));
    const [{ max }] = (yield* all<{ max: string | number | null }>(`SELECT MAX(id) AS max FROM ${this.spec.series}`)) as [
      { max: string | number | null },
    ];
    const chunks = max === null ? 0 : Math.floor(Number(max) / stagedChunkSize) + 1;
    for (const slice of planRollupSlices(rollups, chunks, (c) => staged.get(c) ?? open, this.lastAt, at)) yield* this.rollUpSlice(slice);
  }

  /** Moves one chunk's staged samples before `to` (the open bucket's start) into raw packs. */
  private *packChunk(chunk: number, to: number): Work<void> {
    const { staged, packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const sql = `SELECT at, data FROM ${staged} WHERE chunk = ? AND at < ? ORDER BY id`;
    const rows = (yield* all<{ at: string | number; data: Buffer }>(sql, [chunk, to])).map((r) => ({ at: Number(r.at), data: r.data }));
    // A bucket this chunk was packed for already (a late write) has packs: merge with them.
    const existing = new Map<string, PackPoint[]>();
    const found = yield* all<{ series: string | number; bucket: string | number; data: Buffer }>(
      `SELECT series, bucket, data FROM ${packs} WHERE tier = 0 AND ${this.dialect.inList("bucket", "bigint")} AND series >= ? AND series < ?`,
      [this.dialect.list([...new Set(rows.map((r) => packOf(0, r.at)))]), chunk * stagedChunkSize, (chunk + 1) * stagedChunkSize],
    );
    for (const r of found) existing.set(`${Number(r.series)}:${Number(r.bucket)}`, decodePack(r.data, width));
    yield* this.insertPackData(packStagedBlobs(rows, width, existing).map((p) => [p.series, 0, p.bucket, p.data]));
    yield* run(`DELETE FROM ${staged} WHERE chunk = ? AND at < ?`, [chunk, to]);
  }

  /** Rolls the newest point of each finer pack of one chunk's series into the coarser tier's packs. */
  private *rollUpSlice(slice: RollupSlice): Work<void> {
    const { packs, valueColumns } = this.spec;
    const width = valueColumns.length;
    const lo = slice.chunk * stagedChunkSize;
    const [{ min }] = (yield* all<{ min: string | number | null }>(`SELECT MIN(bucket) AS min FROM ${packs} WHERE tier = ?`, [slice.tier - 1])) as [
      { min: string | number | null },
    ];
    if (min === null) return;
    // The primary key (tier, bucket, series) finds the chunk's packs of each bucket by a range.
    const rows = yield* all<{ series: string | number; bucket: string | number; data: Buffer }>(
      `SELECT series, bucket, data FROM ${packs} WHERE tier = ? AND ${this.dialect.inList("bucket", "bigint")} AND series >= ? AND series < ?`,
      [slice.tier - 1, this.dialect.list(listPackBuckets(slice.tier - 1, slice.from, slice.to, Number(min))), lo, lo + stagedChunkSize],
    );
    const finer = rows.map((p) => ({ series: Number(p.series), bucket: Number(p.bucket), newest: decodeNewestPoint(p.data, width) }));
    yield* this.insertPacks(rollUpPacks(slice.tier, finer));
  }

  private *insertPacks(rows: readonly PackRow[]): Work<void> {
    yield* this.insertPackData(rows.map((r) => [r.series, r.tier, r.bucket, encodePack(r.points)]));
  }

  /** Inserts (series, tier, bucket, data) rows, replacing a pack of the same series, tier and bucket. */
  private *insertPackData(rows: readonly (readonly [number, number, number, Buffer])[]): Work<void> {
    yield* insertRows({
      table: this.spec.packs,
      columns: [
        { name: "series", type: "bigint" },
        { name: "tier", type: "smallint" },
        { name: "bucket", type: "bigint" },
        { name: "data", type: "bytea" },
      ],
      rows,
      conflict: { target: ["tier", "bucket", "series"], update: ["data"] },
    });
  }

  /** A copy of each tier's rollup progress (kept once the transaction commits); after a restart, resumeRollup's. */
  private *copyRollups(): Work<RollupProgress[]> {
    if (this.rollups === null) {
      const { packs } = this.spec;
      const rows = yield* all<{ tier: number; bucket: string | number; series: string | number }>(
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

  /** Each batch row's series id, creating the series not known yet (in the caller's transaction). */
  private *listIds(batch: SeriesBatch): Work<readonly number[]> {
    const same = this.ids?.reuse(batch.keys);
    if (same) return same;
    const { series, keyColumns, keyTypes } = this.spec;
    const keyList = keyColumns.join(", ");
    const known = this.ids ?? new SeriesIds();
    const remember = (rows: Key[]) => {
      for (const r of rows) known.add(keyColumns.map((c) => r[c]!), Number(r.id));
    };
    if (this.ids === null) {
      remember(yield* all<Key>(`SELECT id, ${keyList} FROM ${series}`));
      this.ids = known;
    }
    const count = batch.keys[0]!.length;
    const ids = new Array<number>(count);
    const missing: (string | number)[][] = [];
    const missingRows: number[] = [];
    for (let i = 0; i < count; i++) {
      const id = known.find(batch.keys, i);
      if (id !== undefined) ids[i] = id;
      else {
        missing.push(listKeyValues(batch.keys, i));
        missingRows.push(i);
      }
    }
    if (missing.length > 0) {
      const columns = keyColumns.map((name, i) => ({ name, type: keyTypes[i]! }));
      const inserted = yield* insertRows<Key>({ table: series, columns, rows: missing, conflict: "nothing", returning: ["id", ...keyColumns] });
      remember(inserted);
      // Fewer inserted: another collector sharing a PostgreSQL store created some meanwhile; their ids are read back.
      for (let i = 0; inserted.length < missing.length && i < missing.length; i += missingPerRead) {
        const match = this.dialect.matchRows(keyColumns, keyTypes, missing.slice(i, i + missingPerRead));
        remember(yield* all<Key>(`SELECT id, ${keyList} FROM ${series} WHERE ${match.sql}`, match.params));
      }
    }
    // Only the rows not known before are looked up again (the previous batch's positions are not this batch's).
    for (const i of missingRows) ids[i] = known.find(batch.keys, i)!;
    known.keep(batch.keys, ids);
    return ids;
  }
}

/** New keys whose ids one SELECT reads back. */
const missingPerRead = 10_000;
