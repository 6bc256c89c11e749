import { packOf, packSpreadMs, stagedChunkSize, tiers } from "./tiers";

/**
 * Spreading the rollups of the tiered history (tiers.ts) like the pack close: when a coarse pack closes (an hour for
 * 5-minute points, a day for hourly ones), its series are rolled up a staged chunk (1,024 series ids) at a time, a
 * share per write in proportion to the time since the previous write, so that no write rolls every series at once.
 * A chunk is rolled once the finer tier is written for it: its raw packs (none of its samples before the pack's end
 * left staged), or its finer rollup. Readers are exact throughout: a coarse point is used only before the series'
 * oldest finer point (listTierBounds), so a series reads the same from its finer packs before its rollup as after,
 * and finer packs are dropped only once rolled (a write past the spread, or more than one pack behind, rolls every
 * chunk left before prune drops anything). A chunk's rollup commits with the write that runs it, so after a restart
 * the rollup goes on from the chunk after the newest pack's highest series (resumeRollup).
 */

/**
 * Where one coarser tier's rollup stands: its packs before `rolledTo` are rolled for every series; `partial` is the
 * rollup to `partial.to` under way, done for the chunks below `partial.chunks`.
 */
export interface RollupProgress {
  rolledTo: number;
  partial: { to: number; chunks: number } | null;
}

/** One chunk's rollup: tier `tier`'s packs in [from, to) from the packs of tier − 1, for the series of chunk `chunk`. */
export interface RollupSlice {
  tier: number;
  from: number;
  to: number;
  chunk: number;
}

/** How far the tier is rolled for one chunk. */
function findRolledTo(progress: RollupProgress, chunk: number): number {
  const { partial } = progress;
  return partial !== null && chunk < partial.chunks ? partial.to : progress.rolledTo;
}

/**
 * How many of `chunks` the rollup under way should have done by `at`: all of them once the spread is over, when a
 * newer pack has closed since it began, or when it catches up more than one pack (after a restart or a pause: the
 * finer packs at its start are due to be dropped); else the share of those left in proportion to the time since the
 * previous write (`previousAt`; null after a restart) of what is left of the 4 minutes after the close, rounded up.
 */
function countChunksToRoll(tier: number, progress: RollupProgress, chunks: number, previousAt: number | null, at: number): number {
  const range = progress.partial!;
  const deadline = range.to + packSpreadMs;
  const behind = progress.rolledTo > 0 && range.to - progress.rolledTo > tiers[tier]!.packMs;
  if (at >= deadline || packOf(tier, at) > range.to || behind) return chunks;
  const since = Math.max(previousAt ?? range.to, range.to);
  if (at <= since) return range.chunks;
  return range.chunks + Math.ceil(((chunks - range.chunks) * (at - since)) / (deadline - since));
}

/**
 * The rollup slices a write or prune at `at` runs, finer tiers first, oldest chunk first; updates `progress` (one per
 * tier, the raw tier's unused). `chunks`: how many staged chunks the series ids span; `rawWrittenTo(chunk)`: the time
 * before which the chunk's raw packs are written, after this write's packing (the start of the bucket of its oldest
 * staged sample of a closed bucket, else the open bucket's start).
 */
export function planRollupSlices(
  progress: RollupProgress[],
  chunks: number,
  rawWrittenTo: (chunk: number) => number,
  previousAt: number | null,
  at: number,
): RollupSlice[] {
  const slices: RollupSlice[] = [];
  for (let tier = 1; tier < tiers.length; tier++) {
    const p = progress[tier]!;
    if (p.partial === null) {
      const due = packOf(tier, at);
      if (due <= p.rolledTo) continue;
      p.partial = { to: due, chunks: 0 };
    }
    const range = p.partial;
    const finer = progress[tier - 1]!;
    const finerWrittenTo = (chunk: number) => (tier === 1 ? rawWrittenTo(chunk) : findRolledTo(finer, chunk));
    const target = countChunksToRoll(tier, p, chunks, previousAt, at);
    while (range.chunks < target && finerWrittenTo(range.chunks) >= range.to) {
      slices.push({ tier, from: p.rolledTo, to: range.to, chunk: range.chunks });
      range.chunks++;
    }
    if (range.chunks >= chunks) {
      p.rolledTo = range.to;
      p.partial = null;
    }
  }
  return slices;
}

/** Whether a write or prune at `at` has a rollup to run or continue (else it need not count the chunks). */
export function hasRollupDue(progress: readonly RollupProgress[], at: number): boolean {
  return progress.some((p, tier) => tier > 0 && (p.partial !== null || packOf(tier, at) > p.rolledTo));
}

/** The pack buckets of a tier in [from, to), from `oldest` on (the tier's oldest stored pack: none before it). */
export function listPackBuckets(tier: number, from: number, to: number, oldest: number): number[] {
  const width = tiers[tier]!.packMs;
  const buckets: number[] = [];
  for (let b = packOf(tier, Math.max(from, oldest)); b < to; b += width) buckets.push(b);
  return buckets;
}

/**
 * A tier's progress after a restart, from its newest pack's bucket (`newest`, null when it has none) and the highest
 * series holding a pack there (`highestSeries`): chunks are rolled in order, each with the write that ran it, so the
 * pack is rolled for that series' chunk and those below it; the chunks above are rolled (when the pack was complete,
 * they hold no finer pack of its range and write nothing).
 */
export function resumeRollup(tier: number, newest: number | null, highestSeries: number | null): RollupProgress {
  if (newest === null || highestSeries === null) return { rolledTo: 0, partial: null };
  return { rolledTo: newest, partial: { to: newest + tiers[tier]!.packMs, chunks: Math.floor(highestSeries / stagedChunkSize) + 1 } };
}
