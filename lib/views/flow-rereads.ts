import type { Store, TranslationSeriesPoint } from "@/lib/store";
import type { FlowTranslation, GroupTranslation } from "@/lib/translation";

/** One point of the flow's translation-accuracy chart: records re-read, summed over its groups and partitions. */
export interface FlowRereadPoint {
  at: number;
  /** Records every group would replay if it failed over at `at` (MM2's latest checkpoint, else its translation). */
  failoverReread: number;
  /** Records MM2's translation itself makes them re-read (ideal − translated, positive part). */
  reread: number;
}

/** The chart's data and what it covers. */
export interface FlowRereadSeries {
  points: FlowRereadPoint[];
  /** Checkpointed groups of the flow now, and how many of them the sums include (the largest replays first). */
  groups: number;
  groupsSummed: number;
  /** Width of a point's bucket (ms): each point is the bucket's highest replay. */
  bucketMs: number;
}

/** The chart is a card on the flow page: at most this many points whatever the range. */
export const maxFlowRereadPoints = 120;
/**
 * The store keeps series per group: a request reads at most this many groups' (largest replay now first),
 * so a flow with thousands of groups costs a bounded read; the card says when it sums fewer than all.
 */
export const maxFlowRereadGroups = 50;

/**
 * Sums the samples of several groups per cycle time (the pipeline writes every group of a flow with the cycle's
 * time, so one time is one cycle), counting only positive re-reads as the group page's total does, then keeps per
 * bucket of `bucketMs` from `from` the cycle with the highest replay (a spike is never averaged away).
 */
export function sumFlowRereads(samples: readonly TranslationSeriesPoint[], from: number, bucketMs: number): FlowRereadPoint[] {
  const byTime = new Map<number, { failover: bigint; reread: bigint }>();
  for (const s of samples) {
    const sum = byTime.get(s.at) ?? { failover: 0n, reread: 0n };
    if (s.failoverReread !== null && s.failoverReread > 0n) sum.failover += s.failoverReread;
    if (s.reread !== null && s.reread > 0n) sum.reread += s.reread;
    byTime.set(s.at, sum);
  }
  const buckets = new Map<number, FlowRereadPoint>();
  for (const [at, sum] of [...byTime].sort(([a], [b]) => a - b)) {
    const bucket = Math.floor((at - from) / bucketMs);
    const point = { at, failoverReread: Number(sum.failover), reread: Number(sum.reread) };
    const held = buckets.get(bucket);
    if (!held || point.failoverReread >= held.failoverReread) buckets.set(bucket, point);
  }
  return [...buckets.values()];
}

/**
 * Per cycle's translation of a flow (a new object each cycle) and range key: the series its first request read. The
 * store gains samples only with a new cycle, and at 10,000 partitions with 50 groups one read cost the flow page
 * ~0.5 s of CPU (decoding the series' chunks) on every request; now a cycle's requests share one read.
 */
const seriesOfCycle = new WeakMap<FlowTranslation, Map<string, Promise<FlowRereadSeries>>>();

/**
 * readFlowRereads once per cycle and range: concurrent requests wait for the same read, and the window is the one of
 * the request that read it (later requests of the cycle differ by less than a poll interval; the chart spans its
 * points). A failed read is forgotten, so the next request tries again.
 */
export function readCycleFlowRereads(
  store: Pick<Store, "readTranslationSeries">,
  ft: FlowTranslation,
  range: { key: string; from: number; to: number },
): Promise<FlowRereadSeries> {
  let byRange = seriesOfCycle.get(ft);
  if (!byRange) seriesOfCycle.set(ft, (byRange = new Map()));
  const held = byRange.get(range.key);
  if (held) return held;
  const reading = readFlowRereads(store, ft, range);
  byRange.set(range.key, reading);
  reading.catch(() => byRange.delete(range.key));
  return reading;
}

/** The flow's re-reads over [from, to] from the store's per-group series (bounded: see maxFlowRereadGroups). */
export async function readFlowRereads(store: Pick<Store, "readTranslationSeries">, ft: FlowTranslation, range: { from: number; to: number }): Promise<FlowRereadSeries> {
  const groups = selectLargestReplays(ft.groups, maxFlowRereadGroups);
  const series = await Promise.all(groups.map((g) => store.readTranslationSeries(ft.flow, g.group, range.from, range.to)));
  const bucketMs = Math.max(1, Math.ceil((range.to - range.from) / maxFlowRereadPoints));
  return { points: sumFlowRereads(series.flat(), range.from, bucketMs), groups: ft.groups.length, groupsSummed: groups.length, bucketMs };
}

/** Largest replay first, then by name: the order the card sums groups in. */
const compareReplays = (a: GroupTranslation, b: GroupTranslation): number => {
  const [x, y] = [a.totals.failoverReplayRecords, b.totals.failoverReplayRecords];
  return y > x ? 1 : y < x ? -1 : a.group.localeCompare(b.group);
};

/**
 * The first `count` groups in compareReplays order, as a stable sort then a slice would give, without sorting every
 * group (a flow may have thousands; only 50 are read): one pass, each group compared with the smallest kept first.
 */
function selectLargestReplays(groups: readonly GroupTranslation[], count: number): GroupTranslation[] {
  const kept: GroupTranslation[] = [];
  for (const g of groups) {
    if (kept.length === count && compareReplays(g, kept[count - 1]!) >= 0) continue;
    // After every kept group that does not come later: equal groups keep their order, as in a stable sort.
    let at = kept.length;
    while (at > 0 && compareReplays(g, kept[at - 1]!) < 0) at--;
    kept.splice(at, 0, g);
    if (kept.length > count) kept.pop();
  }
  return kept;
}
