import type { PackInputPoint, PackPoint } from "./sample-pack";

/**
 * Tiered, change-only, packed history (migrations 4 and 7), shared by both stores for partition and translation
 * series.
 *
 * WRITES: a series (a flow partition, or a group × partition) gets a raw sample (tier 0) only in a cycle where one of
 * its values differs from the last one written for it (kept in memory as int64 words, cycle-changes.ts; after a
 * restart the first cycle writes every series again). A write stores its changed samples as one row per chunk of 1,024 series ids (a
 * CYCLE blob, sample-pack.ts): its cost follows the number of changed series, not one row and index entry per
 * sample. Once a 5-minute raw bucket closes, its staged samples are PACKED: one row per series and bucket holding
 * its samples delta-encoded (a few bytes each), a slice of chunks per write spread over the next 5 minutes
 * (countChunksToPack), so that no write packs every series at once; a chunk's staged rows are packed (straight from
 * their bytes: staged-packs.ts) and deleted in one transaction, so a reader finds each sample once, staged or packed.
 * Coarser tiers are rolled up from the finer tier's packs when their own pack closes, a chunk of series at a time once
 * its finer packs are written, spread over the same 4 minutes (rollup-plan.ts): a 5-minute point is the newest sample
 * of a raw pack (stamped at its start), an hourly point the newest 5-minute point of an hour. A crash loses at most the
 * cycle being written.
 *
 * TIERS (points per series that changes every cycle, 10 s poll): raw 1 h = 360 in 12 packs; 5-minute for 24 h = 288
 * in 24 hourly packs; 1-hour for 7 days = 168 in 7 daily packs. Packs are dropped whole once past their tier's window
 * (a raw sample lives 1 h to 1 h 5 min plus the prune interval). The charts draw 15 min from raw, 24 h from ≤ 288
 * five-minute points plus the raw hour, 7 d from ≤ 168 hourly points plus the finer tiers.
 *
 * READS carry the last value forward: an idle series has no point in the range, so the reader returns the last
 * point before `from` as the first point, at `from`, and its last value again at the newest cycle written (a flat
 * line over the range; mergeTierRows). A series holds at most ~45 packs, so a read decodes all of them and applies
 * the rules below to its points, exactly as to unpacked rows. Pruning keeps each series' newest daily pack however
 * old, so its newest hourly point is there for a series idle longer than 7 days.
 */
interface TierSpec {
  /** Width of a point's bucket (0: raw, every written cycle at its own time). */
  widthMs: number;
  /** Width of a pack: the points of one series in one such bucket are stored as one row. */
  packMs: number;
  retentionMs: number;
}

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;

export const tiers: readonly TierSpec[] = [
  { widthMs: 0, packMs: 5 * minuteMs, retentionMs: hourMs },
  { widthMs: 5 * minuteMs, packMs: hourMs, retentionMs: 24 * hourMs },
  { widthMs: hourMs, packMs: 24 * hourMs, retentionMs: 7 * 24 * hourMs },
];

/** The tier whose newest pack per series prune keeps (the carried-forward value of an idle series). */
export const coarsestTier = tiers.length - 1;

/** Series ids per staged cycle row: a read of one series decodes only its chunk's rows. */
export const stagedChunkSize = 1024;

/** Staged samples of a closed raw bucket are packed over this long after it closed: before the next one closes. */
export const packSpreadMs = (tiers[0]!.packMs * 4) / 5;

/**
 * How many chunks holding staged samples of closed buckets (`oldest`: each one's oldest sample, ascending) a write or
 * prune at `at` packs, the oldest first: every chunk with a sample older than the bucket that just closed (after a
 * restart, a late write, or writes too far apart), and of the others a share in proportion to the time since the
 * previous write (`previousAt`; null after a restart) of what is left of the 4 minutes after the close, rounded up;
 * all of them from then on.
 */
export function countChunksToPack(oldest: readonly number[], previousAt: number | null, at: number): number {
  const open = packOf(0, at);
  const overdue = oldest.filter((o) => o < open - tiers[0]!.packMs).length;
  const rest = oldest.length - overdue;
  const deadline = open + packSpreadMs;
  const since = Math.max(previousAt ?? open, open);
  if (at >= deadline) return oldest.length;
  if (at <= since) return overdue;
  return overdue + Math.ceil((rest * (at - since)) / (deadline - since));
}

/** The start of the pack of `at` in a tier. */
export function packOf(tier: number, at: number): number {
  const width = tiers[tier]!.packMs;
  return Math.floor(at / width) * width;
}

/** Packs of a tier whose bucket is at or before this are past its window at `now` (their whole bucket is). */
export function listStalePackLimit(tier: number, now: number): number {
  return now - tiers[tier]!.retentionMs - tiers[tier]!.packMs;
}

/** The start of the bucket of `at` in a tier (raw: `at` itself). */
function bucketOf(tier: number, at: number): number {
  const width = tiers[tier]!.widthMs;
  return width === 0 ? at : Math.floor(at / width) * width;
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

/** A pack to write: one series' points of one tier and pack bucket, oldest first. */
export interface PackRow {
  series: number;
  tier: number;
  bucket: number;
  points: PackInputPoint[];
}

/** The packs of `tier` rolled from the newest points of tier − 1's packs (each stamped at its finer pack's start). */
export function rollUpPacks(tier: number, finer: readonly { series: number; bucket: number; newest: PackPoint }[]): PackRow[] {
  const groups = new Map<string, PackRow>();
  for (const f of finer) {
    const bucket = packOf(tier, f.bucket);
    const key = `${f.series}:${bucket}`;
    let row = groups.get(key);
    if (row === undefined) {
      row = { series: f.series, tier, bucket, points: [] };
      groups.set(key, row);
    }
    row.points.push({ at: f.bucket, values: f.newest.values });
  }
  for (const row of groups.values()) row.points.sort((a, b) => a.at - b.at);
  return [...groups.values()];
}

/** What a table knows of its own writes and prunes (`series_state`): its newest write, its latest prune. */
export interface TableState {
  newestCycle: number | null;
  prunedAt: number | null;
}

/**
 * The stored points a reader may use. Packs are dropped whole, so some points outlive their tier's window until the
 * pack does: they are hidden as if dropped one by one at the latest prune (`prunedAt`), and so is a coarsest point
 * past the window unless it stands for the series' newest closed hour (what prune keeps one row per series of).
 */
function listVisiblePoints<V>(stored: readonly TierRow<V>[], prunedAt: number | null): readonly TierRow<V>[] {
  if (prunedAt === null) return stored;
  const width = tiers[coarsestTier]!.widthMs;
  const closed = Math.floor(prunedAt / width) * width;
  let newestClosed = -Infinity;
  for (const r of stored) if (r.at < closed) newestClosed = Math.max(newestClosed, Math.floor(r.at / width) * width);
  return stored.filter((r) => r.at >= prunedAt - tiers[r.tier]!.retentionMs || (r.tier === coarsestTier && r.at >= newestClosed));
}

/**
 * One series' points over [from, to] from all of its stored points (every tier: decoded packs and staged samples),
 * by the rules of listTierBounds and mergeTierRows: what the same points stored one row each would read.
 */
export function selectSeriesPoints<V>(stored: readonly TierRow<V>[], from: number, to: number, state: TableState): { at: number; values: V }[] {
  const visible = listVisiblePoints(stored, state.prunedAt);
  const oldest: (number | undefined)[] = tiers.map(() => undefined);
  for (const r of visible) if (oldest[r.tier] === undefined || r.at < oldest[r.tier]!) oldest[r.tier] = r.at;
  const bounds = listTierBounds(oldest, to);
  const rows = visible.filter((r) => r.at >= from && r.at <= Math.min(to, bounds[r.tier]! - 1));
  const previous: TierRow<V>[] = [];
  for (let tier = 0; tier < tiers.length; tier++) {
    const limit = Math.min(from, bounds[tier]!);
    let best: TierRow<V> | undefined;
    for (const r of visible) if (r.tier === tier && r.at < limit && (best === undefined || r.at > best.at)) best = r;
    if (best !== undefined) previous.push(best);
  }
  // The newest cycle written stands for "every series had its value then" only while its raw samples are kept.
  const { newestCycle, prunedAt } = state;
  const newest = newestCycle !== null && (prunedAt === null || newestCycle >= prunedAt - tiers[0]!.retentionMs) ? newestCycle : null;
  return mergeTierRows(rows, previous, bounds, { from, to, newestCycle: newest });
}
