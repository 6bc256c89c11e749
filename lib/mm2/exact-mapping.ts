/**
 * Exact upstream → downstream offset mapping from the FULL offset-sync history of one partition
 * (the collector keeps every sync; MM2's own store keeps at most 64 and compaction keeps one).
 *
 * What "downstream for upstream u" means here: the downstream **position** of u — the target offset
 * of the first replicated record whose upstream offset is >= u. That is what a consumer group offset
 * translates to, and it equals the downstream offset of record u itself whenever u was replicated.
 *
 * Reasoning (s = last sync with s.upstream <= u, n = the sync after s):
 * - u == s.upstream: exact, s.downstream.
 * - Density assumption: MM2 is the only, non-transactional writer of the target partition, so the
 *   records replicated after s and up to n occupy exactly the target offsets s.downstream+1 …
 *   n.downstream. Exactly-once source support (transaction markers) or foreign writers break this:
 *   pass `{ denseDownstream: false }` to get only monotonicity-based brackets.
 * - Between s and n there are D = n.downstream - s.downstream - 1 replicated records with distinct
 *   upstream offsets in (s.upstream, n.upstream). The position of u is s.downstream + 1 + k where k is
 *   how many of them lie below u: k <= min(D, u - s.upstream - 1) and, since at most n.upstream - u
 *   of them can lie in [u, n.upstream), k >= max(0, D - (n.upstream - u)). When both bounds meet the
 *   position is exact — always the case when the advances are equal (one-to-one run, no gap).
 * - Without density only s.downstream + 1 <= position <= n.downstream is provable.
 * - u beyond the newest sync: MM2 may not have replicated it yet; low = newest.downstream + 1, high unknown.
 *
 * Epochs: a sync whose upstream is lower than the previous one (a rewind: topic reset, restart
 * re-reading, auto.offset.reset) or equal to it with a different downstream (re-replication), or
 * whose downstream does not advance while upstream does (a downstream truncation), starts a new
 * epoch; only the latest epoch is used for mapping. Exact repeats of the previous sync are ignored.
 */
import type { SyncPoint } from "./types";

/** Result of mapping one upstream offset. */
export type DownstreamMapping =
  | { kind: "exact"; downstream: bigint; basis: "sync" | "one-to-one-run" | "pinned-by-bounds" }
  | { kind: "bracket"; low: bigint; high: bigint | null; reason: "upstream-gap" | "downstream-gap" | "beyond-newest-sync" }
  | { kind: "none"; reason: "no-sync" | "before-first-sync" };

/** Options of mapUpstreamToDownstream. */
export interface MappingOptions {
  /** Target offsets are dense between syncs (no transaction markers, MM2 the only writer). Default true. */
  denseDownstream?: boolean;
}

/** How one sync relates to the sync written before it. */
export type SyncStepKind = "advance" | "repeat" | "rewind" | "re-replication" | "downstream-truncation";

/** A consecutive pair of syncs in the history; `index` is the later sync's position. */
export interface SyncStep {
  kind: SyncStepKind;
  index: number;
  fromUpstream: bigint;
  toUpstream: bigint;
  fromDownstream: bigint;
  toDownstream: bigint;
}

/** An advance where upstream moved further than downstream: upstream offsets were not replicated. */
export interface UpstreamGap extends SyncStep {
  kind: "advance";
  /** upstreamAdvance - downstreamAdvance: upstream offsets skipped (compaction, markers, loss…). */
  skippedUpstream: bigint;
}

/** Classifies every consecutive pair of syncs, in history order. */
export function classifySyncSteps(history: readonly SyncPoint[]): SyncStep[] {
  const steps: SyncStep[] = [];
  for (let index = 1; index < history.length; index++) {
    const from = history[index - 1];
    const to = history[index];
    if (from === undefined || to === undefined) continue;
    const kind = classifyStep(from, to);
    steps.push({
      kind,
      index,
      fromUpstream: from.upstream,
      toUpstream: to.upstream,
      fromDownstream: from.downstream,
      toDownstream: to.downstream,
    });
  }
  return steps;
}

/** Pairs of consecutive syncs where upstream advanced more than downstream (data-loss evidence). */
export function listUpstreamGaps(history: readonly SyncPoint[]): UpstreamGap[] {
  const gaps: UpstreamGap[] = [];
  for (const step of classifySyncSteps(history)) {
    const skipped = step.toUpstream - step.fromUpstream - (step.toDownstream - step.fromDownstream);
    if (step.kind === "advance" && skipped > 0n) gaps.push({ ...step, kind: "advance", skippedUpstream: skipped });
  }
  return gaps;
}

/** Syncs whose upstream went backwards (strictly lower than the previous sync's upstream). */
export function listRewinds(history: readonly SyncPoint[]): SyncStep[] {
  return classifySyncSteps(history).filter((step) => step.kind === "rewind");
}

/** Syncs whose downstream went backwards or stood still while upstream did not go back. */
export function listDownstreamTruncations(history: readonly SyncPoint[]): SyncStep[] {
  return classifySyncSteps(history).filter((step) => step.kind === "downstream-truncation");
}

/** The syncs of the latest epoch, strictly increasing in both offsets, repeats removed. */
export function selectLatestEpoch(history: readonly SyncPoint[]): SyncPoint[] {
  let epoch: SyncPoint[] = [];
  for (const sync of history) {
    const last = epoch[epoch.length - 1];
    const kind = last === undefined ? "advance" : classifyStep(last, sync);
    if (kind === "repeat") continue;
    if (kind === "advance") epoch.push(sync);
    else epoch = [sync];
  }
  return epoch;
}

/** Maps upstream offset `upstream` to its downstream position using the latest epoch of `history`. */
export function mapUpstreamToDownstream(
  history: readonly SyncPoint[],
  upstream: bigint,
  options: MappingOptions = {},
): DownstreamMapping {
  const epoch = selectLatestEpoch(history);
  if (epoch.length === 0) return { kind: "none", reason: "no-sync" };
  const index = findLastAtOrBefore(epoch, upstream);
  const sync = epoch[index];
  if (sync === undefined) return { kind: "none", reason: "before-first-sync" };
  return mapBetweenSyncs(sync, epoch[index + 1], upstream, options);
}

/**
 * The mapping of `upstream` from the last sync at or before it (`sync`) and the one after it in the
 * latest epoch (`next`, none beyond the newest): the rules above, for callers that already hold the
 * epoch and located the offset in it.
 */
export function mapBetweenSyncs(sync: SyncPoint, next: SyncPoint | undefined, upstream: bigint, options: MappingOptions = {}): DownstreamMapping {
  if (sync.upstream === upstream) return { kind: "exact", downstream: sync.downstream, basis: "sync" };
  if (next === undefined) {
    return { kind: "bracket", low: sync.downstream + 1n, high: null, reason: "beyond-newest-sync" };
  }
  const upstreamAdvance = next.upstream - sync.upstream;
  const downstreamAdvance = next.downstream - sync.downstream;
  if (options.denseDownstream === false || downstreamAdvance > upstreamAdvance) {
    // More target offsets than upstream offsets: not dense, so only monotonicity is provable.
    return { kind: "bracket", low: sync.downstream + 1n, high: next.downstream, reason: "downstream-gap" };
  }
  const between = downstreamAdvance - 1n;
  const low = sync.downstream + 1n + pickMax(0n, between - (next.upstream - upstream));
  const high = pickMin(next.downstream, sync.downstream + (upstream - sync.upstream));
  if (low === high) {
    const basis = upstreamAdvance === downstreamAdvance ? "one-to-one-run" : "pinned-by-bounds";
    return { kind: "exact", downstream: low, basis };
  }
  return { kind: "bracket", low, high, reason: "upstream-gap" };
}

function classifyStep(from: SyncPoint, to: SyncPoint): SyncStepKind {
  if (to.upstream === from.upstream && to.downstream === from.downstream) return "repeat";
  if (to.upstream < from.upstream) return "rewind";
  if (to.downstream <= from.downstream) return "downstream-truncation";
  if (to.upstream === from.upstream) return "re-replication";
  return "advance";
}

/** Index of the last sync with upstream <= offset in an increasing epoch, or -1 (binary search). */
export function findLastAtOrBefore(epoch: readonly SyncPoint[], offset: bigint): number {
  // Most offsets asked about (a group's committed offset) are at or past the newest sync: one comparison, where the
  // search touched log2(n) syncs scattered over the heap for each of 190,000 group partitions a cycle.
  const newest = epoch[epoch.length - 1];
  if (newest !== undefined && newest.upstream <= offset) return epoch.length - 1;
  let lo = 0;
  let hi = epoch.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const sync = epoch[mid];
    if (sync !== undefined && sync.upstream <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

function pickMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function pickMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
