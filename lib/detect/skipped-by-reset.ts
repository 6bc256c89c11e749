import type { FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import type { SyncHistories } from "@/lib/collector/sync-history";
import { listUpstreamGaps } from "@/lib/mm2/exact-mapping";
import { readPartitionSettings } from "@/lib/collector/partition-settings";
import { isCopierChangeSkip } from "./copier-changed";
import type { EventCandidate, OffsetRange } from "./events";
import {
  formatCount,
  forEachJudged,
  formatRange,
  hasNewSyncStep,
  isSourceCompacted,
  listFreshFlowPartitions,
  maxOffset,
  minOffset,
  namePartition,
  StepKind,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import { describeSkipTail, isSameTopicEpoch } from "./skip-evidence";
import { FindingType, Severity, type Finding } from "./types";

/** How a skip was seen; the evidence names it. */
const SkipSignal = {
  /** An offset-sync step skipped upstream offsets that are still in the log (at or above the log start). Exact. */
  SYNC_GAP: "offset-sync-gap",
  /** MM2's position jumped past the log start by more than the deleted offsets and what it wrote. Estimate. */
  POSITION_JUMP: "position-jump",
  /** MM2 picked the partition up at its log end: its first offset sync is above offsets that existed. Exact. */
  STARTED_AT_LOG_END: "started-at-log-end",
} as const;
type SkipSignalName = (typeof SkipSignal)[keyof typeof SkipSignal];

/** Upstream offsets a sync step may skip for transaction markers alone (as DATA_LOSS's maxMarkerGap). */
const maxMarkerGap = 2n;

/**
 * MM2_SKIPPED_BY_RESET (warning) — MM2's consumer has `auto.offset.reset=latest` (`consumer.` or `source.consumer.`
 * on the MirrorSourceConnector; honoured by MirrorSourceTask since Kafka 3.7): when its position fell below the log
 * start (retention, DeleteRecords) it resumed at the log END, skipping on purpose records that still existed. The
 * deleted part below the log start stays DATA_LOSS (data-loss.ts); this reports the part that existed.
 *
 * LOGIC — only on flows whose MirrorSourceConnector sets `auto.offset.reset=latest`, on partitions judged as
 * DATA_LOSS judges them (fresh in both cycles, same topic ID, log end not gone back), S = current log start:
 * - offset-sync gap (exact): a sync step new this cycle skipped k upstream offsets ending at u2 (MM2 writes a sync
 *   at the first record after a jump), the topic not compacted: the skipped offsets at or above S still exist,
 *   [max(u2 − k, S), u2 − 1]. On a partition where transaction markers were seen, steps of ≤ 2 are markers.
 * - position jump (estimate; no new sync step, e.g. `emit.offset-syncs.enabled=false`): previous frontier
 *   F0 < S ≤ F and MM2 advanced k = (F − F0) − (target records written) offsets more than it wrote; S − F0 of them
 *   were deleted (DATA_LOSS), the rest existed: [S, S + k − (S − F0) − 1].
 * - started at the log end (exact): MM2 picks a partition up (a new connector, a new topic or partition it finds at
 *   its next topic refresh, `refresh.topics.interval.seconds`, 10 min by default) at the log end, so records written
 *   before are never copied. Seen in the cycle MM2's position first appears — the partition was in the flow the cycle
 *   before without one, or its flow is new this cycle — from MM2's first offset sync (u0, 0): MirrorSourceTask syncs
 *   the first record it copies, into an empty remote topic at downstream 0. With log start S (the cycle before, else
 *   now), [S, u0 − 1] existed and were skipped. Not seen across a Gapwatch restart (no cycle before), with offset syncs
 *   off, or into a remote topic that already held records (downstream above 0).
 * Key `MM2_SKIPPED_BY_RESET|<flow>|<topic>|<partition>|<first skipped offset>`; sightings of one skip merge.
 */
export function detectSkippedByReset(ctx: DetectorContext): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  forEachJudged(ctx.judged, maySkip, ({ view, before, syncs }) => {
    if (readPartitionSettings(view.flow, view.partition).autoOffsetReset !== "latest" || !isSameTopicEpoch(before, view.partition)) return;
    // A topic moved to another source connector starts at the log end: TOPIC_CHANGED_CONNECTOR reports that skip.
    if (view.partition.copierChange !== undefined && before.sourceConnector !== view.partition.sourceConnector) return;
    const compacted = isSourceCompacted(ctx.current, view);
    if (compacted !== false) return;
    if (before.mm2Position === null) {
      const start = findStartAtLogEnd(view, before.sourceLogStart ?? view.partition.sourceLogStart, ctx.syncHistory);
      if (start !== null) candidates.push(createSkipCandidate(view, SkipSignal.STARTED_AT_LOG_END, start));
    }
    const gaps = findSyncGapSkips(view.partition, syncs);
    const found = gaps.length > 0 || syncs.length > 1 ? gaps : findPositionJumpSkip(before, view.partition);
    for (const [signal, range] of found) candidates.push(createSkipCandidate(view, signal, range));
  });
  candidates.push(...findStartsOfNewFlows(ctx));
  return candidates;
}

/** Partitions of flows new this cycle (a connector created while Gapwatch runs) MM2 started at the log end. */
function findStartsOfNewFlows(ctx: DetectorContext): EventCandidate[] {
  if (ctx.previous === null) return [];
  const known = new Set(ctx.previous.flows.map((f) => f.id));
  const fresh = new Set(ctx.current.flows.filter((f) => !known.has(f.id)));
  if (fresh.size === 0) return [];
  const candidates: EventCandidate[] = [];
  for (const view of listFreshFlowPartitions(ctx.current)) {
    // The settings of the connector that copies the partition (split flows), as for the judged partitions above.
    if (!fresh.has(view.flow) || readPartitionSettings(view.flow, view.partition).autoOffsetReset !== "latest") continue;
    if (isSourceCompacted(ctx.current, view) !== false) continue;
    const start = findStartAtLogEnd(view, view.partition.sourceLogStart, ctx.syncHistory);
    if (start !== null) candidates.push(createSkipCandidate(view, SkipSignal.STARTED_AT_LOG_END, start));
  }
  return candidates;
}

/** [S, u0 − 1] when MM2's first offset sync of the partition (u0, 0) is above the log start S; else null. */
function findStartAtLogEnd(view: FlowPartitionView, logStart: bigint | null, history: SyncHistories): OffsetRange | null {
  const held = history.get(view.key);
  const first = held === undefined || held.length === 0 ? undefined : held.point(0);
  if (view.partition.mm2Position === null || logStart === null || first === undefined || first.downstream !== 0n) return null;
  return logStart < first.upstream ? { first: logStart, last: first.upstream - 1n, exact: true } : null;
}

type Sighting = [SkipSignalName, OffsetRange];

function findSyncGapSkips(partition: FlowPartition, syncs: readonly OffsetSyncPoint[]): Sighting[] {
  const logStart = partition.sourceLogStart;
  if (syncs.length < 2 || logStart === null) return [];
  const sightings: Sighting[] = [];
  for (const gap of listUpstreamGaps(syncs)) {
    if (partition.transactionMarkersSeen && gap.skippedUpstream <= maxMarkerGap) continue;
    if (isCopierChangeSkip(partition, gap.toUpstream - gap.skippedUpstream)) continue;
    const first = maxOffset(gap.toUpstream - gap.skippedUpstream, logStart);
    if (first >= gap.toUpstream) continue;
    sightings.push([SkipSignal.SYNC_GAP, { first, last: gap.toUpstream - 1n, exact: true }]);
  }
  return sightings;
}

function findPositionJumpSkip(before: FlowPartition, now: FlowPartition): Sighting[] {
  const frontierBefore = before.mm2Position;
  const frontier = now.mm2Position;
  const logStart = now.sourceLogStart;
  const { targetLogEnd } = now;
  if (frontierBefore === null || frontier === null || logStart === null) return [];
  if (targetLogEnd === null || before.targetLogEnd === null || targetLogEnd < before.targetLogEnd) return [];
  if (!(frontierBefore < logStart && logStart <= frontier)) return [];
  const skipped = frontier - frontierBefore - (targetLogEnd - before.targetLogEnd);
  const existed = minOffset(skipped - (logStart - frontierBefore), frontier - logStart);
  if (existed <= 0n) return [];
  return [[SkipSignal.POSITION_JUMP, { first: logStart, last: logStart + existed - 1n, exact: false }]];
}

function createSkipCandidate(view: FlowPartitionView, signal: SkipSignalName, range: OffsetRange): EventCandidate {
  const { flow, partition } = view;
  return {
    scope: `${FindingType.MM2_SKIPPED_BY_RESET}|${flow.id}|${partition.topic}|${partition.partition}`,
    tag: "",
    keySuffix: range.first.toString(),
    range,
    render: (key, merged, firstSeen): Finding => {
      const r = merged ?? range;
      const count = r.last - r.first + 1n;
      const noun = count === 1n ? "record" : "records";
      const where = namePartition(partition.topic, partition.partition);
      return {
        key,
        type: FindingType.MM2_SKIPPED_BY_RESET,
        severity: Severity.WARNING,
        flow: flow.id,
        cluster: flow.source,
        topic: partition.topic,
        partition: partition.partition,
        summary: signal === SkipSignal.STARTED_AT_LOG_END
          ? `MM2 never copied ${formatCount(count)} ${noun} of ${where} (offsets ${formatRange(r.first, r.last)}), on ` +
            `purpose: its consumer has auto.offset.reset=latest and began at the log end of ${flow.source} when it ` +
            "picked the partition up"
          : `MM2 skipped ${formatCount(count)} ${noun} of ${where} on purpose (offsets ${formatRange(r.first, r.last)}): ` +
            `its consumer has auto.offset.reset=latest and resumed at the log end of ${flow.source}`,
        evidence: {
          firstSkippedOffset: r.first.toString(),
          lastSkippedOffset: r.last.toString(),
          skippedCount: count.toString(),
          ...describeSkipTail(partition, r, signal, firstSeen),
        },
        observedAt: firstSeen,
      };
    },
  };
}

/**
 * Whether a judged partition's numbers allow a skip (the steady path): MM2 had no position last cycle (it may have
 * started at the log end), new sync steps, or the log start between MM2's positions of the two cycles (a jump).
 */
function maySkip(judged: JudgedFlow, slot: number): boolean {
  const { now, was } = judged;
  return Number.isNaN(was.mm2Position[slot]!) ||
    hasNewSyncStep(judged, slot, StepKind.UPSTREAM_GAP) ||
    (was.mm2Position[slot]! < now.sourceLogStart[slot]! && now.sourceLogStart[slot]! <= now.mm2Position[slot]!);
}
