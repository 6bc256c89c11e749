import type { FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import type { PartitionSample } from "@/lib/store";
import { formatCount } from "@/lib/format";

/**
 * The partition page's server→client boundary: bigint offsets become numbers for the charts
 * (exact up to 2^53, far beyond any real offset) and formatted strings for the tables.
 */
const num = (v: bigint | null): number | null => (v === null ? null : Number(v));

/** One chart point: offsets over time. */
export interface OffsetPoint {
  at: number;
  sourceLogStart: number | null;
  sourceLogEnd: number | null;
  mm2Position: number | null;
  targetLogEnd: number | null;
  lag: number | null;
}

/** A stretch where records were deleted at the source before MM2 copied them. */
export interface LossGap {
  from: number;
  to: number;
  /** The previous sample's MM2 position and the new log start: the records lost in between. */
  lowOffset: number;
  highOffset: number;
  records: string;
}

/** A moment where the source log end fell below MM2's position: the topic was deleted and recreated (or truncated). */
export interface ResetMark {
  at: number;
  label: string;
}

export function shapeOffsetPoints(samples: readonly PartitionSample[]): OffsetPoint[] {
  return samples.map((s) => ({ at: s.at, sourceLogStart: num(s.sourceLogStart), sourceLogEnd: num(s.sourceLogEnd), mm2Position: num(s.mm2Position), targetLogEnd: num(s.targetLogEnd), lag: num(s.lag) }));
}

/**
 * Rules, comparing each sample with the one before it (samples oldest first):
 * - data loss: sourceLogStart > previous mm2Position — the records [previous position, new log
 *   start) were deleted before MM2 read them; N = log start − previous position.
 * - topic reset: sourceLogEnd < previous mm2Position — offsets went backwards at the source.
 * Samples with an unknown (null) value on either side are skipped.
 */
export function findLossAndResets(samples: readonly PartitionSample[]): { gaps: LossGap[]; resets: ResetMark[] } {
  const gaps: LossGap[] = [];
  const resets: ResetMark[] = [];
  for (let i = 1; i < samples.length; i++) {
    const prev = samples[i - 1]!;
    const cur = samples[i]!;
    if (prev.mm2Position === null) continue;
    if (cur.sourceLogStart !== null && cur.sourceLogStart > prev.mm2Position) {
      gaps.push({ from: prev.at, to: cur.at, lowOffset: Number(prev.mm2Position), highOffset: Number(cur.sourceLogStart), records: formatCount(cur.sourceLogStart - prev.mm2Position) });
    }
    if (cur.sourceLogEnd !== null && cur.sourceLogEnd < prev.mm2Position) {
      resets.push({ at: cur.at, label: "topic reset" });
    }
  }
  return { gaps, resets };
}

/** The exact evidence of a DATA_LOSS alert (offsets as decimal strings). */
export interface LossEvidence {
  firstLostOffset: string;
  lastLostOffset: string;
  lostCount: string;
}

/** The loss range of a DATA_LOSS alert's evidence, or null when it does not carry one. */
export function readLossEvidence(evidence: Record<string, string | number | boolean | null>): LossEvidence | null {
  const { firstLostOffset, lastLostOffset, lostCount } = evidence;
  return typeof firstLostOffset === "string" && typeof lastLostOffset === "string" && typeof lostCount === "string" ? { firstLostOffset, lastLostOffset, lostCount } : null;
}

/**
 * Replaces a chart gap's estimate (from two samples, which can be a flush behind) with the exact
 * range of the DATA_LOSS alert that covers it, so the chart and the banner say the same thing.
 */
export function refineGapsWithAlerts(gaps: readonly LossGap[], evidence: readonly LossEvidence[]): LossGap[] {
  return gaps.map((gap) => {
    const match = evidence.find((e) => Number(e.firstLostOffset) < gap.highOffset && Number(e.lastLostOffset) >= gap.lowOffset);
    if (!match) return gap;
    return { ...gap, lowOffset: Number(match.firstLostOffset), highOffset: Number(match.lastLostOffset) + 1, records: formatCount(BigInt(match.lostCount)) };
  });
}

/** One retained offset sync, newest first in the table. */
export interface SyncRowView {
  /** Position in the full history (0 = oldest), so rows keep a stable key. */
  index: number;
  upstream: string;
  downstream: string;
  upstreamValue: number;
  downstreamValue: number;
}

/** The newest `limit` offset syncs of the full history, newest first. */
export function shapeOffsetSyncs(history: readonly OffsetSyncPoint[] | undefined, limit = 64): { rows: SyncRowView[]; total: number } {
  const all = history ?? [];
  const start = Math.max(0, all.length - limit);
  const rows: SyncRowView[] = [];
  for (let i = all.length - 1; i >= start; i--) {
    const s = all[i]!;
    rows.push({ index: i, upstream: formatCount(s.upstream), downstream: formatCount(s.downstream), upstreamValue: Number(s.upstream), downstreamValue: Number(s.downstream) });
  }
  return { rows, total: all.length };
}

/** The "current values" panel: label → formatted value. */
export function shapeCurrentValues(p: FlowPartition): { label: string; value: string; hint?: string }[] {
  return [
    { label: "Source log start", value: formatCount(p.sourceLogStart) },
    { label: "Source log end", value: formatCount(p.sourceLogEnd) },
    { label: "MM2 position", value: formatCount(p.mm2Position), hint: `from ${p.positionSource ?? "nothing yet"}` },
    { label: "Committed position", value: formatCount(p.committedPosition), hint: "as committed to Connect (can trail by one flush)" },
    { label: "Target log start", value: formatCount(p.targetLogStart) },
    { label: "Target log end", value: formatCount(p.targetLogEnd) },
    { label: "Lag (records)", value: formatCount(p.lag) },
    { label: "Latest sync", value: p.latestSync ? `${formatCount(p.latestSync.upstream)} → ${formatCount(p.latestSync.downstream)}` : "—", hint: "upstream → downstream" },
    { label: "Source leader epoch", value: p.sourceLeaderEpoch === null ? "—" : String(p.sourceLeaderEpoch) },
  ];
}
