import type { AlertRecord } from "@/lib/alerts/types";
import type { FlowPartition } from "@/lib/collector/types";
import { readPointHistory, readSyncHistories } from "@/lib/collector/sync-history";
import { type Evidence, FindingType } from "@/lib/detect/types";
import type { PartitionSample } from "@/lib/store";
import { formatCount } from "@/lib/format";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { servedOffsetSyncs } from "@/lib/pipeline/served-read-model";

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

/** A stretch where records were deleted at the source before MM2 copied them (from a DATA_LOSS alert). */
export interface LossGap {
  /** The sample before the cycle that detected the loss, and that cycle. */
  from: number;
  to: number;
  /** The alert's first lost offset and one past its last: the records lost in between. */
  lowOffset: number;
  highOffset: number;
  records: string;
}

/** When a TOPIC_RESET alert was first seen, with its summary. */
export interface ResetMark {
  at: number;
  label: string;
  summary: string;
}

/**
 * An MM2 event on the partition (from an MM2_REDELIVERY or MM2_POSITION_MOVED alert): records copied
 * twice, or a position moved by hand. Neutral, not a loss: a dashed line with a short label.
 */
export interface EventMark {
  at: number;
  kind: "redelivery" | "moved-back" | "moved-forward";
  label: string;
  summary: string;
}

/** Every mark of the partition chart. */
export interface ChartMarks {
  gaps: LossGap[];
  resets: ResetMark[];
  events: EventMark[];
}

/** What the chart reads from an alert of the partition. */
export type MarkAlert = Pick<AlertRecord, "type" | "summary" | "evidence" | "firstSeen">;

export function shapeOffsetPoints(samples: readonly PartitionSample[]): OffsetPoint[] {
  return samples.map((s) => ({ at: s.at, sourceLogStart: num(s.sourceLogStart), sourceLogEnd: num(s.sourceLogEnd), mm2Position: num(s.mm2Position), targetLogEnd: num(s.targetLogEnd), lag: num(s.lag) }));
}

/**
 * The chart's marks, from the partition's alerts only (one source of truth: the chart never says
 * what no alert says): DATA_LOSS areas, TOPIC_RESET lines, and MM2_REDELIVERY / MM2_POSITION_MOVED
 * lines labelled with their exact range. An alert is marked when it was first seen within
 * [from, to]; a loss spans, in time, from the sample before its detection to the detection, and in
 * offsets exactly the alert's range.
 */
export function placeAlertMarks(samples: readonly PartitionSample[], alerts: readonly MarkAlert[], range: { from: number; to: number }): ChartMarks {
  const gaps: LossGap[] = [];
  const resets: ResetMark[] = [];
  const events: EventMark[] = [];
  for (const alert of alerts) {
    const seenAt = typeof alert.evidence.seenAt === "number" ? alert.evidence.seenAt : alert.firstSeen;
    if (seenAt < range.from || seenAt > range.to) continue;
    if (alert.type === FindingType.TOPIC_RESET) resets.push({ at: seenAt, label: "topic reset", summary: alert.summary });
    const event = labelEvent(alert);
    if (event !== null) events.push({ at: seenAt, ...event, summary: alert.summary });
    const loss = alert.type === FindingType.DATA_LOSS ? readLossEvidence(alert.evidence) : null;
    if (loss === null) continue;
    const before = samples.findLast((s) => s.at < seenAt);
    gaps.push({
      from: before?.at ?? seenAt,
      to: seenAt,
      lowOffset: Number(loss.firstLostOffset),
      highOffset: Number(loss.lastLostOffset) + 1,
      records: formatCount(BigInt(loss.lostCount)),
    });
  }
  gaps.sort((a, b) => a.to - b.to || a.lowOffset - b.lowOffset);
  resets.sort((a, b) => a.at - b.at);
  events.sort((a, b) => a.at - b.at);
  return { gaps, resets, events };
}

const isOffset = (v: unknown): v is string => typeof v === "string" && /^\d+$/.test(v);

/** "a–b" with thousands separators, or "a" for a single offset. */
function formatOffsetRange(first: string, last: string): string {
  return first === last ? formatCount(BigInt(first)) : `${formatCount(BigInt(first))}–${formatCount(BigInt(last))}`;
}

const records = (count: string) => `${formatCount(BigInt(count))} ${count === "1" ? "record" : "records"}`;

/** The kind and short label of an MM2 event alert with exact evidence, or null for any other alert. */
function labelEvent(alert: MarkAlert): Pick<EventMark, "kind" | "label"> | null {
  const e = alert.evidence;
  if (alert.type === FindingType.MM2_REDELIVERY) {
    if (!isOffset(e.firstDuplicateOffset) || !isOffset(e.lastDuplicateOffset) || !isOffset(e.duplicateCount)) return null;
    return { kind: "redelivery", label: `MM2 re-copied ${records(e.duplicateCount)} (${formatOffsetRange(e.firstDuplicateOffset, e.lastDuplicateOffset)})` };
  }
  if (alert.type !== FindingType.MM2_POSITION_MOVED) return null;
  if (!isOffset(e.firstAffectedOffset) || !isOffset(e.lastAffectedOffset) || !isOffset(e.affectedCount)) return null;
  const range = formatOffsetRange(e.firstAffectedOffset, e.lastAffectedOffset);
  if (e.direction === "back") return { kind: "moved-back", label: `position moved back by hand: ${records(e.affectedCount)} re-copied (${range})` };
  if (e.direction === "forward") return { kind: "moved-forward", label: `position moved forward by hand: ${records(e.affectedCount)} skipped (${range})` };
  return null;
}

/** The exact evidence of a DATA_LOSS alert (offsets as decimal strings). */
interface LossEvidence {
  firstLostOffset: string;
  lastLostOffset: string;
  lostCount: string;
}

/** The loss range of a DATA_LOSS alert's evidence, or null when it does not carry one. */
function readLossEvidence(evidence: Evidence): LossEvidence | null {
  const { firstLostOffset, lastLostOffset, lostCount } = evidence;
  return isOffset(firstLostOffset) && isOffset(lastLostOffset) && isOffset(lostCount) ? { firstLostOffset, lastLostOffset, lostCount } : null;
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

/**
 * A partition's newest offset syncs, newest first, numbered and counted as the collector holds them: a published
 * model keeps only the newest `servedOffsetSyncs` of them, with the count held (served-read-model.ts).
 */
export function shapeOffsetSyncs(
  model: Pick<ReadModel, "history" | "offsetSyncsHeld">,
  key: string,
): { rows: SyncRowView[]; total: number } {
  const kept = readSyncHistories(model.history.offsetSyncs).get(key) ?? readPointHistory([]);
  const total = model.offsetSyncsHeld?.get(key) ?? kept.length;
  const start = Math.max(0, kept.length - servedOffsetSyncs);
  const rows: SyncRowView[] = [];
  for (let i = kept.length - 1; i >= start; i--) {
    const s = kept.point(i);
    const index = total - kept.length + i;
    const [upstream, downstream] = [formatCount(s.upstream), formatCount(s.downstream)];
    rows.push({ index, upstream, downstream, upstreamValue: Number(s.upstream), downstreamValue: Number(s.downstream) });
  }
  return { rows, total };
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
