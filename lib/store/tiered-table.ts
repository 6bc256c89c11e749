import type { SqliteDb } from "./db";
import { ChangeFilter, coarsestTier, listTierBounds, mergeTierRows, planRollups, type Rollup, type SeriesItem, seriesKey, type TierRow, tiers } from "./tiers";

/**
 * A tiered, change-only series table of the SQLite store (tiers.ts): `<series>` maps a key (key columns) to an
 * integer id, `<points>` holds (series, tier, at, values…) with values as INTEGER (int64, exact: statements that
 * read them use safeIntegers, so no value passes through a JS number).
 */
interface TieredTableSpec {
  series: string;
  points: string;
  keyColumns: readonly string[];
  valueColumns: readonly string[];
}

export class SqliteTieredTable {
  private readonly filter = new ChangeFilter();
  private ids: Map<string, number> | null = null;
  private rolledTo: number[] | null = null;

  constructor(
    private readonly db: SqliteDb,
    private readonly spec: TieredTableSpec,
  ) {}

  /** Writes the changed items' raw rows at `at`, and the rollups of buckets closed by then, in one transaction. */
  write(items: readonly SeriesItem[], at: number): void {
    const { points, valueColumns } = this.spec;
    const changed = this.filter.listChanged(items);
    const rolledTo = [...this.readRolledTo()];
    const rollups = planRollups(rolledTo, at);
    if (changed.length === 0 && rollups.length === 0) return;
    const insert = this.db.prepare(`INSERT OR REPLACE INTO ${points} (series, tier, at, ${valueColumns.join(", ")}) VALUES (?, 0, ?, ${valueColumns.map(() => "?").join(", ")})`);
    try {
      this.db.transaction(() => {
        this.runRollups(rollups);
        for (const item of changed) insert.run(this.idOf(item), at, ...item.values);
      })();
    } catch (err) {
      // Ids handed out inside the rolled-back transaction do not exist: read them again next time.
      this.ids = null;
      throw err;
    }
    this.rolledTo = rolledTo;
    this.filter.remember(changed);
  }

  /** The series ids of the rows whose key columns equal `where` (a prefix of the key columns), with their keys. */
  findSeries(where: readonly (string | number)[]): { id: number; key: Record<string, string | number> }[] {
    const { series, keyColumns } = this.spec;
    const filter = keyColumns.slice(0, where.length).map((c) => `${c} = ?`).join(" AND ");
    const rows = this.db.prepare(`SELECT id, ${keyColumns.join(", ")} FROM ${series} WHERE ${filter}`).all(...where) as Record<string, string | number>[];
    return rows.map((r) => ({ id: Number(r.id), key: r }));
  }

  /** One series' points over [from, to], oldest first, the last value before `from` carried to `from` (tiers.ts). */
  read(id: number, from: number, to: number): { at: number; values: bigint[] }[] {
    const { points, valueColumns } = this.spec;
    const cols = valueColumns.join(", ");
    const oldestRows = this.db.prepare(`SELECT tier, MIN(at) AS at FROM ${points} WHERE series = ? GROUP BY tier`).all(id) as { tier: number; at: number }[];
    const oldest = tiers.map((_, tier) => oldestRows.find((r) => r.tier === tier)?.at);
    const bounds = listTierBounds(oldest, to);
    const select = this.db.prepare(`SELECT tier, at, ${cols} FROM ${points} WHERE series = ? AND tier = ? AND at >= ? AND at <= ? ORDER BY at`).safeIntegers(true);
    const last = this.db.prepare(`SELECT tier, at, ${cols} FROM ${points} WHERE series = ? AND tier = ? AND at < ? ORDER BY at DESC LIMIT 1`).safeIntegers(true);
    const rows: TierRow<bigint[]>[] = [];
    const previous: TierRow<bigint[]>[] = [];
    for (let tier = 0; tier < tiers.length; tier++) {
      for (const r of select.all(id, tier, from, Math.min(to, bounds[tier]! - 1)) as Record<string, bigint>[]) rows.push(this.toRow(r));
      const before = last.get(id, tier, Math.min(from, bounds[tier]!)) as Record<string, bigint> | undefined;
      if (before) previous.push(this.toRow(before));
    }
    const newestCycle = this.db.prepare(`SELECT MAX(at) FROM ${points} WHERE tier = 0`).pluck().get() as number | null;
    return mergeTierRows(rows, previous, bounds, { from, to, newestCycle });
  }

  /**
   * Drops each tier's rows older than its retention, keeping every series' newest coarsest row (carried forward).
   * The buckets closed by `now` are rolled up first, so no raw row goes before its bucket's rollup holds it.
   */
  prune(now: number): void {
    const { points } = this.spec;
    const rolledTo = [...this.readRolledTo()];
    this.db.transaction(() => this.runRollups(planRollups(rolledTo, now)))();
    this.rolledTo = rolledTo;
    for (let tier = 0; tier < coarsestTier; tier++) {
      this.db.prepare(`DELETE FROM ${points} WHERE tier = ? AND at < ?`).run(tier, now - tiers[tier]!.retentionMs);
    }
    this.db
      .prepare(
        `DELETE FROM ${points} WHERE tier = :tier AND at < :cutoff
         AND at < (SELECT MAX(p.at) FROM ${points} AS p WHERE p.series = ${points}.series AND p.tier = :tier)`,
      )
      .run({ tier: coarsestTier, cutoff: now - tiers[coarsestTier]!.retentionMs });
  }

  /** Rolls each bucket's last row per series into the coarser tier (SQLite takes the bare columns of MAX(at)'s row). */
  private runRollups(rollups: readonly Rollup[]): void {
    if (rollups.length === 0) return;
    const cols = this.spec.valueColumns.join(", ");
    const points = this.spec.points;
    const rollup = this.db.prepare(
      `INSERT OR REPLACE INTO ${points} (series, tier, at, ${cols})
       SELECT series, :tier, (at / :width) * :width, ${cols} FROM (
         SELECT series, MAX(at) AS at, ${cols} FROM ${points} WHERE tier = :tier - 1 AND at >= :from AND at < :to GROUP BY series, at / :width)`,
    );
    // The width as a BigInt: bound as a JS number it is a REAL, and at / width would not be an integer division.
    for (const r of rollups) rollup.run({ tier: r.tier, width: BigInt(tiers[r.tier]!.widthMs), from: r.from, to: r.to });
  }

  private toRow(r: Record<string, bigint>): TierRow<bigint[]> {
    return { tier: Number(r.tier), at: Number(r.at), values: this.spec.valueColumns.map((c) => r[c]!) };
  }

  /** Each tier's rollup progress: after a restart, the end of its newest bucket (the older ones were rolled). */
  private readRolledTo(): number[] {
    if (this.rolledTo !== null) return this.rolledTo;
    const newest = this.db.prepare(`SELECT MAX(at) AS at FROM ${this.spec.points} WHERE tier = ?`);
    this.rolledTo = tiers.map((t, tier) => {
      const at = tier === 0 ? null : (newest.get(tier) as { at: number | null }).at;
      return at === null ? 0 : at + t.widthMs;
    });
    return this.rolledTo;
  }

  private idOf(item: SeriesItem): number {
    const { series, keyColumns } = this.spec;
    if (this.ids === null) {
      const rows = this.db.prepare(`SELECT id, ${keyColumns.join(", ")} FROM ${series}`).raw(true).all() as [number, ...(string | number)[]][];
      this.ids = new Map(rows.map(([id, ...key]) => [seriesKey(key), id]));
    }
    const known = this.ids.get(item.key);
    if (known !== undefined) return known;
    const placeholders = keyColumns.map(() => "?").join(", ");
    const { lastInsertRowid } = this.db.prepare(`INSERT INTO ${series} (${keyColumns.join(", ")}) VALUES (${placeholders})`).run(...item.keyValues);
    this.ids.set(item.key, Number(lastInsertRowid));
    return Number(lastInsertRowid);
  }
}
