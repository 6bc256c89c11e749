/**
 * Tiered, change-only history (migration 4), shared by both stores for partition and translation series.
 *
 * WRITES: a series (a flow partition, or a group × partition) gets a raw row (tier 0) only in a cycle where one of
 * its values differs from the last row written for it (kept in memory by a ChangeFilter; after a restart the first
 * cycle writes every series again). Coarser tiers are rolled up from the finer one when a bucket closes (the first
 * write after it): one row per series and bucket that changed in it, holding the bucket's last value, stamped at
 * the bucket's start. A cycle therefore writes one row per changed series, plus one row per changed series and
 * bucket when a bucket closes.
 *
 * TIERS (rows per series that changes every cycle, 10 s poll): raw 1 h = 360; 5-minute for 24 h = 288; 1-hour
 * for 7 days = 168; 816 in all (2,808 with 1-minute/24 h + 10-minute/7 d). The charts draw 15 min from raw, 24 h
 * from ≤ 288 five-minute points plus the raw hour, 7 d from ≤ 168 hourly points plus the finer tiers: at least
 * one point per pixel column of the charts. At 100,000 partitions of which 30 % move, 816 × 30,000 ≈ 24.5 M rows.
 *
 * READS carry the last value forward: an idle series has no row in the range, so the reader returns the last
 * sample before `from` as the first point, at `from`, and its last value again at the newest cycle written (a flat
 * line over the range; mergeTierRows). Pruning keeps each series'
 * newest hourly row however old, so that value is there for a series idle longer than 7 days.
 */
interface TierSpec {
  /** Bucket width (0: raw, every written cycle at its own time). */
  widthMs: number;
  retentionMs: number;
}

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;

export const tiers: readonly TierSpec[] = [
  { widthMs: 0, retentionMs: hourMs },
  { widthMs: 5 * minuteMs, retentionMs: 24 * hourMs },
  { widthMs: hourMs, retentionMs: 7 * 24 * hourMs },
];

/** The tier whose newest row per series prune keeps (the carried-forward value of an idle series). */
export const coarsestTier = tiers.length - 1;

/** The start of the bucket of `at` in a tier (raw: `at` itself). */
function bucketOf(tier: number, at: number): number {
  const width = tiers[tier]!.widthMs;
  return width === 0 ? at : Math.floor(at / width) * width;
}

type SeriesValues = readonly (bigint | null)[];

/** One series' values this cycle: `key` is seriesKey(keyValues) (the key columns, in order). */
export interface SeriesItem {
  key: string;
  keyValues: readonly (string | number)[];
  values: SeriesValues;
}

/** The in-memory key of a series (its key columns joined). */
export const seriesKey = (keyValues: readonly (string | number)[]): string => keyValues.join("\u0000");

/**
 * The values last written per series key, so that a cycle writes only the series that changed. `listChanged`
 * does not remember: the caller calls `remember` once the write committed (a failed write is tried again).
 */
export class ChangeFilter {
  private readonly last = new Map<string, SeriesValues>();

  listChanged<T extends { key: string; values: SeriesValues }>(items: readonly T[]): T[] {
    return items.filter((item) => !sameValues(this.last.get(item.key), item.values));
  }

  remember(items: readonly { key: string; values: SeriesValues }[]): void {
    for (const item of items) this.last.set(item.key, item.values);
  }
}

function sameValues(before: SeriesValues | undefined, after: SeriesValues): boolean {
  if (before === undefined || before.length !== after.length) return false;
  for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) return false;
  return true;
}

/** One rollup to run: tier `tier`'s buckets in [from, to) from tier − 1's rows. */
export interface Rollup {
  tier: number;
  from: number;
  to: number;
}

/**
 * The rollups due at `at`, given where each tier was rolled up to (`rolledTo[tier]`, the end of its last rolled
 * bucket; 0: never, so every row of the finer tier is rolled); updates `rolledTo`. Finer tiers first: a coarse
 * bucket is rolled from the finer rows its closing has just rolled.
 */
export function planRollups(rolledTo: number[], at: number): Rollup[] {
  const due: Rollup[] = [];
  for (let tier = 1; tier < tiers.length; tier++) {
    const to = bucketOf(tier, at);
    const from = rolledTo[tier] ?? 0;
    if (to > from) due.push({ tier, from, to });
    rolledTo[tier] = Math.max(rolledTo[tier] ?? 0, to);
  }
  return due;
}

/** A stored row of one series and tier. */
export interface TierRow<V> {
  tier: number;
  at: number;
  values: V;
}

/**
 * Per tier, the time before which its rows are used: a coarse row is used only before the bucket of the oldest row
 * the finer tiers hold for the series (its last value would otherwise stand for samples that the finer tiers still
 * have, at an earlier time). `oldest[tier]`: the series' oldest row in that tier, if any.
 */
export function listTierBounds(oldest: readonly (number | undefined)[], to: number): number[] {
  const bounds: number[] = [];
  let finest: number | undefined;
  for (let tier = 0; tier < tiers.length; tier++) {
    bounds.push(finest === undefined ? to + 1 : bucketOf(tier, finest));
    const own = oldest[tier];
    if (own !== undefined) finest = finest === undefined ? own : Math.min(finest, own);
  }
  return bounds;
}

/**
 * One series' points over [from, to]: the rows inside their tier's bound, oldest first; when the first is after
 * `from`, the last row before `from` (`previous`: the newest one per tier, bounds applied) is carried forward to
 * `from` — the series did not change in between, since any change writes a row. The last value is carried
 * forward too, to the newest cycle the table holds a raw row of (`newestCycle`, any series: every series is in
 * every cycle, so an idle one still had that value then), within `to`: a flat line over an idle stretch.
 */
export function mergeTierRows<V>(
  rows: readonly TierRow<V>[],
  previous: readonly TierRow<V>[],
  bounds: readonly number[],
  range: { from: number; to: number; newestCycle: number | null },
): { at: number; values: V }[] {
  const { from, to, newestCycle } = range;
  const used = rows.filter((r) => r.at >= from && r.at < bounds[r.tier]!).sort((a, b) => a.at - b.at || a.tier - b.tier);
  const points = used.map((r) => ({ at: r.at, values: r.values }));
  const before = previous.filter((r) => r.at < from && r.at < bounds[r.tier]!).sort((a, b) => b.at - a.at || a.tier - b.tier)[0];
  if (before !== undefined && (points.length === 0 || points[0]!.at > from)) points.unshift({ at: from, values: before.values });
  const last = points.at(-1);
  const end = newestCycle === null ? null : Math.min(to, newestCycle);
  if (last !== undefined && end !== null && end > last.at) points.push({ at: end, values: last.values });
  return points;
}
