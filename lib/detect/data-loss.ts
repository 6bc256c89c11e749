import { countLedgerRange, type LedgerCounts } from "@/lib/collector/transaction-ledger";
import { ledgerKey, type FlowPartition, type OffsetSyncPoint, type TransactionLedgerView } from "@/lib/collector/types";
import { listUpstreamGaps } from "@/lib/mm2/exact-mapping";
import type { EventCandidate, OffsetRange } from "./events";
import {
  findSourceTopic,
  hasNewSyncStep,
  formatCount,
  formatRange,
  isDeleting,
  isSourceCompacted,
  minOffset,
  namePartition,
  readJudged,
  StepKind,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
  type JudgedPartition,
} from "./snapshot-views";
import { describeSkipTail, isSameTopicEpoch } from "./skip-evidence";
import { FindingType, Severity, type Finding } from "./types";

/** How a loss was seen; the evidence names it. */
export const LossSignal = {
  /** An offset-sync step skipped upstream offsets that are now below the log start. Exact. */
  SYNC_GAP: "offset-sync-gap",
  /** MM2's position jumped past the new log start between two cycles. Exact if MM2 was caught up on both sides. */
  POSITION_JUMP: "position-jump",
  /** MM2's position is still below the log start. An upper bound. */
  BEHIND_LOG_START: "position-behind-log-start",
} as const;
export type LossSignalName = (typeof LossSignal)[keyof typeof LossSignal];

/**
 * DATA_LOSS — unreplicated source records were deleted (retention, DeleteRecords) before MM2
 * copied them; with auto.offset.reset=earliest MM2 then silently skips them.
 *
 * LOGIC — a flow partition is judged only when all hold, else it is skipped:
 * - both the flow's clusters are fresh in this cycle and the previous one (never judge stale data;
 *   never judge the first cycle after start-up: nothing to compare with);
 * - sourceLogStart and mm2Position are known (null position: MM2 never copied from it);
 * - the source topic ID is unchanged and the log end did not go backwards (that is TOPIC_RESET).
 * Frontier F = mm2Position, the first upstream offset MM2 has not provably copied: the collector's
 *   best-known position, the larger of Connect's committed position (published only every
 *   offset.flush.interval.ms) and the one the newest offset sync plus the live target log end
 *   proves. Counting from the committed position alone would report records MM2 did copy, e.g.
 *   when a caught-up topic is purged.
 * Signals, in the order they are trusted (S = current sourceLogStart):
 * - offset-sync gap: a sync step new this cycle advanced upstream k offsets more than downstream,
 *   the topic is not compacted (known configs; compaction leaves gaps by design) and S > u2 − k
 *   (the skipped offsets are gone; transaction markers are skipped offsets that still exist). On a
 *   partition where transaction markers were seen, a step skipping ≤ 2 offsets is taken for markers
 *   (a Streams app purging its repartition topic moves the log start past them within seconds): a
 *   loss of 1–2 records there is left to the position signals below (blind spot, documented).
 *   Lost [u2 − k, min(u2, S) − 1]. Exact: MM2 writes the sync at the first record after a jump.
 * - position jump: no new sync step to tell exactly (`emit.offset-syncs.enabled=false`, or the topic is
 *   `compact,delete`, where sync steps skip compacted offsets by design and only this signal tells a retention skip),
 *   previous frontier F0 < S ≤ F (the log start passed where MM2 was and MM2 is past it now). MM2's real positions
 *   are bounded by the frontier and the source log end E; with W target records written between the cycles, lost
 *   L ≤ min(S − F0, E − F0 − W) and L ≥ F − E0 − W, placed at [S − L, S − 1] (a jump lands on the log start).
 *   Exact when MM2 was caught up (F = E) in both cycles on a gap-free partition; else the upper bound, with the
 *   lower one and the reason in the evidence (findPositionJumpLoss).
 * - behind log start: F < S. Lost at most [F, S − 1] (MM2 may have copied above Connect's last flush); grows while
 *   MM2 stays behind (typically auto.offset.reset=none, where the task stays RUNNING without progress).
 * The evidence says `lostCountIs` "exact" or "at-most", with `lostAtLeast` and `lostCountBoundReason`.
 * Sightings of one loss merge into one finding (events.ts); its key holds the first lost offset of
 * the first sighting: `DATA_LOSS|<flow>|<topic>|<partition>|<firstLostOffset>`.
 * On a partition where transaction markers were seen, `lostCount` counts offsets; the source
 * partition's transaction ledger (read before the deletion) splits them into committed records,
 * aborted records and markers, and names the offsets it had not read (unknown). A sighting whose
 * offsets the ledger read as markers only is no loss (MM2 never copies markers), whatever the
 * signal; where the ledger read a sync gap's skipped offsets, the ≤ 2 marker rule gives way to it.
 */
export function detectDataLoss(ctx: DetectorContext): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  for (const judged of ctx.judged) {
    for (let n = 0; n < judged.slots.length; n++) {
      if (judged.exact && !mayHaveLost(judged, judged.slots[n]!)) continue;
      candidates.push(...judgeLoss(ctx, readJudged(judged, n)));
    }
  }
  return candidates;
}

/**
 * Whether a judged partition's numbers allow a sighting (the steady path: numbers only): a new sync step, the log
 * start between MM2's positions of the two cycles (a jump), or above MM2's position now (behind). NaN (unknown)
 * compares false, as the sightings' null checks do.
 */
function mayHaveLost(judged: JudgedFlow, slot: number): boolean {
  if (hasNewSyncStep(judged, slot, StepKind.UPSTREAM_GAP)) return true;
  const logStart = judged.now.sourceLogStart[slot]!;
  const frontier = judged.now.mm2Position[slot]!;
  return frontier < logStart || (judged.was.mm2Position[slot]! < logStart && logStart <= frontier);
}

/** The loss candidates of one judged partition (detectDataLoss). */
function judgeLoss(ctx: DetectorContext, { view, before, syncs }: JudgedPartition): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  if (!isSameTopicEpoch(before, view.partition)) return candidates;
  const { topic, partition, transactionMarkersSeen } = view.partition;
  const ledger = transactionMarkersSeen ? ctx.current.transactionLedgers?.[ledgerKey(view.flow.source, topic, partition)] : undefined;
  const gaps = findSyncGapLosses(ctx, view, syncs, ledger);
  // On a compact,delete topic sync steps skip offsets by design: only the position jump tells a retention skip.
  const syncsTell = syncs.length > 1 && !isCompactedWithRetention(ctx, view);
  const compacted = isSourceCompacted(ctx.current, view);
  const found = gaps.length > 0 || syncsTell ? gaps : findPositionJumpLoss(before, view.partition, compacted);
  const behind = findBehindLogStartLoss(view.partition);
  if (found.length === 0 && behind.length === 0) return candidates;
  for (const [signal, range, bound] of [...found, ...behind]) {
    // Offsets the ledger read as transaction markers only: MM2 never copies them, nothing was lost.
    if (ledger !== undefined && holdsOnlyMarkers(ledger, range)) continue;
    candidates.push(createLossCandidate(view, signal, range, ledger, bound));
  }
  return candidates;
}

/** Where a sighting's count is an upper bound: the least that was lost (null: unknown, possibly none) and why. */
interface LossBound {
  atLeast: bigint | null;
  why: string;
}

type Sighting = [LossSignalName, OffsetRange, LossBound?];

/** No sighting: one shared empty list, not a new one per partition and cycle. */
const none: readonly Sighting[] = [];

/**
 * Upstream offsets a sync step may skip for transaction markers alone: one commit/abort marker per
 * transaction, two when two transactional producers' transactions end back to back. MM2 never
 * copies markers, so such a step is not a loss even once the log start passed it.
 */
const maxMarkerGap = 2n;

function findSyncGapLosses(
  ctx: DetectorContext,
  view: FlowPartitionView,
  syncs: readonly OffsetSyncPoint[],
  ledger: TransactionLedgerView | undefined,
): readonly Sighting[] {
  const logStart = view.partition.sourceLogStart;
  if (syncs.length < 2) return none;
  const compacted = isSourceCompacted(ctx.current, view);
  if (logStart === null || compacted !== false) return none;
  const sightings: Sighting[] = [];
  for (const gap of listUpstreamGaps(syncs)) {
    const first = gap.toUpstream - gap.skippedUpstream;
    if (logStart <= first) continue;
    // Where the ledger read the skipped offsets it tells markers from records (detectDataLoss);
    // elsewhere small steps are taken for markers.
    const known = ledger !== undefined && countLedgerRange(ledger, first, gap.toUpstream - 1n).unknown.length === 0;
    if (view.partition.transactionMarkersSeen && !known && gap.skippedUpstream <= maxMarkerGap) continue;
    sightings.push([LossSignal.SYNC_GAP, { first, last: minOffset(gap.toUpstream, logStart) - 1n, exact: true }]);
  }
  return sightings;
}

/**
 * A topic compacted and also cleaned by retention (`cleanup.policy=compact,delete`): its log start moves past
 * records as a delete-policy topic's does. A compact-only topic's log start does not move (the cleaner keeps the
 * first segment's base offset; DeleteRecords is refused by policy), so it is left out.
 */
function isCompactedWithRetention(ctx: DetectorContext, view: FlowPartitionView): boolean {
  if (isSourceCompacted(ctx.current, view) !== true) return false;
  const configs = findSourceTopic(ctx.current, view)?.configs;
  if (configs === null || configs === undefined) return false;
  return isDeleting(configs);
}

function holdsOnlyMarkers(ledger: TransactionLedgerView, range: OffsetRange): boolean {
  const split = countLedgerRange(ledger, range.first, range.last);
  return split.unknown.length === 0 && split.committed === 0n && split.aborted === 0n;
}

/**
 * MM2's real position R at a cycle is only bounded by what Gapwatch reads: R ≥ mm2Position (Connect commits
 * only offsets of records the target acknowledged, WorkerSourceTask's SubmittedRecords) and R ≤ the source log
 * end. It is known exactly when the two meet: MM2 caught up, nothing left to copy.
 */
function isPositionExact(p: FlowPartition): boolean {
  return p.mm2Position !== null && p.sourceLogEnd !== null && p.mm2Position >= p.sourceLogEnd;
}

/**
 * Position jump: the log start passed where MM2 was (F0 < S ≤ F). With one target record per copied source
 * record, MM2 skipped L = (R1 − R0) − (T1 − T0) offsets; all of them deleted ones where the partition has no
 * other gaps (not compacted, no transaction markers) and MM2 is the target's only writer. R0 ∈ [F0, E0] and
 * R1 ∈ [F, E1] (isPositionExact), so L ≤ min(S − F0, E1 − F0 − ΔT) and L ≥ F − E0 − ΔT: exact when MM2 was
 * caught up in both cycles, else an upper bound with the lower one beside it (none where other gaps exist).
 */
function findPositionJumpLoss(
  before: FlowPartition,
  now: FlowPartition,
  compacted: boolean | null,
): readonly Sighting[] {
  const frontierBefore = before.mm2Position;
  const frontier = now.mm2Position;
  const logStart = now.sourceLogStart;
  const { targetLogEnd } = now;
  if (frontierBefore === null || frontier === null || logStart === null) return none;
  if (targetLogEnd === null || before.targetLogEnd === null || targetLogEnd < before.targetLogEnd) return none;
  if (!(frontierBefore < logStart && logStart <= frontier)) return none;
  const written = targetLogEnd - before.targetLogEnd;
  const reasons: string[] = [];
  if (!isPositionExact(before)) reasons.push(boundReasons.before(frontierBefore));
  if (!isPositionExact(now)) reasons.push(boundReasons.now(frontier));
  if (compacted !== false) reasons.push(boundReasons.compacted);
  if (now.transactionMarkersSeen) reasons.push(boundReasons.markers);
  if (now.targetDensityIssue !== null) reasons.push(boundReasons.foreign);
  // Another writer's records on the target are not MM2's copies: only the deleted span bounds the loss.
  const copied = now.targetDensityIssue === null ? written : 0n;
  const upper = minOffset(logStart - frontierBefore, (now.sourceLogEnd ?? frontier) - frontierBefore - copied);
  if (upper <= 0n) return none;
  // Skipped offsets that were not deleted (compaction gaps, markers) or another writer's records leave no lower bound.
  const gapFree = compacted === false && !now.transactionMarkersSeen && now.targetDensityIssue === null;
  const lower = gapFree ? clampOffset(frontier - (before.sourceLogEnd ?? frontierBefore) - written, upper) : null;
  const exact = reasons.length === 0 && lower === upper;
  const bound = exact ? undefined : { atLeast: lower, why: reasons.join("; ") };
  return [[LossSignal.POSITION_JUMP, { first: logStart - upper, last: logStart - 1n, exact }, bound]];
}

/**
 * Behind log start: F < S, so [F, S − 1] is gone; MM2 may have copied part of it before the purge beyond the
 * position Connect last flushed, so that is what was lost at most.
 */
function findBehindLogStartLoss(now: FlowPartition): readonly Sighting[] {
  const frontier = now.mm2Position;
  const logStart = now.sourceLogStart;
  if (frontier === null || logStart === null || frontier >= logStart) return none;
  const bound = { atLeast: null, why: boundReasons.behind(frontier) };
  return [[LossSignal.BEHIND_LOG_START, { first: frontier, last: logStart - 1n, exact: false }, bound]];
}

/** Why a loss's count is an upper bound, per cause (the evidence's `lostCountBoundReason`). */
const boundReasons = {
  before: (f: bigint) =>
    `MM2's position before the deletion (${f}) is Connect's last offset flush (every offset.flush.interval.ms), ` +
    "which can trail what MM2 had copied",
  now: (f: bigint) =>
    `MM2's position now (${f}) is Connect's last offset flush, which can trail what MM2 has copied since`,
  behind: (f: bigint) =>
    `MM2's position (${f}) is Connect's last offset flush (every offset.flush.interval.ms): MM2 may have copied ` +
    "records above it before they were deleted",
  compacted: "compaction leaves offsets MM2 skips by design, and they count here",
  markers: "transaction markers take offsets MM2 never copies, and they count here",
  foreign: "another producer writes to the target topic, so its log end does not count MM2's copies",
} as const;

/** `value` within [0, max]. */
function clampOffset(value: bigint, max: bigint): bigint {
  if (value < 0n) return 0n;
  return value > max ? max : value;
}

function createLossCandidate(
  view: FlowPartitionView,
  signal: LossSignalName,
  range: OffsetRange,
  ledger: TransactionLedgerView | undefined,
  bound: LossBound | undefined,
): EventCandidate {
  const { flow, partition } = view;
  const scope = `${FindingType.DATA_LOSS}|${flow.id}|${partition.topic}|${partition.partition}`;
  return {
    scope,
    tag: "",
    keySuffix: range.first.toString(),
    range,
    render: (key, merged, firstSeen): Finding => {
      const r = merged ?? range;
      const count = r.last - r.first + 1n;
      // Deleted offsets cannot be read any more: on a partition with transaction markers some of
      // them were markers, so the count is what was lost at most, and the summary says so.
      const markers = partition.transactionMarkersSeen;
      const noun = markers ? "offsets (records and transaction markers)" : count === 1n ? "record" : "records";
      const verb = count === 1n && !markers ? "was" : "were";
      const split = ledger === undefined ? null : countLedgerRange(ledger, r.first, r.last);
      const where = namePartition(partition.topic, partition.partition);
      // An exact range (offset syncs, or MM2 caught up on both sides of a jump) replaces a bound when merged.
      const atMost = r.exact ? undefined : bound;
      const lost = `${formatCount(count)} ${noun} of ${where} ${verb} deleted at ${flow.source} before MM2 copied them`;
      // A bound whose least is none (MM2 may have copied every one before Connect's last flush said so) is worth a
      // look, not a page: a critical DATA_LOSS means records surely lost.
      const possiblyNone = atMost !== undefined && atMost.atLeast === 0n;
      return {
        key,
        type: FindingType.DATA_LOSS,
        severity: possiblyNone ? Severity.WARNING : Severity.CRITICAL,
        flow: flow.id,
        cluster: flow.source,
        topic: partition.topic,
        partition: partition.partition,
        summary:
          split === null
            ? atMost === undefined
              ? `${lost} (offsets ${formatRange(r.first, r.last)})`
              : `At most ${lost} (offsets ${formatRange(r.first, r.last)}; ${describeLeast(atMost.atLeast)})`
            : `Offsets ${formatRange(r.first, r.last)} of ${where} were deleted at ${flow.source} before MM2 copied them: ${describeSplit(split)}`,
        evidence: {
          firstLostOffset: r.first.toString(),
          lastLostOffset: r.last.toString(),
          lostCount: count.toString(),
          lostCountIncludesMarkers: markers,
          lostCommittedRecords: split?.committed.toString() ?? null,
          lostAbortedRecords: split?.aborted.toString() ?? null,
          lostMarkers: split?.markers.toString() ?? null,
          lostUnknownOffsets: split === null ? null : split.unknown.map((u) => formatRange(u.first, u.last)).join(", "),
          lostCountIs: atMost === undefined ? "exact" : "at-most",
          lostAtLeast: atMost === undefined ? count.toString() : (atMost.atLeast?.toString() ?? null),
          lostCountBoundReason: atMost?.why ?? null,
          ...describeSkipTail(partition, r, signal, firstSeen),
        },
        observedAt: firstSeen,
      };
    },
  };
}

/** The lower end of a bounded count, for the summary. */
function describeLeast(atLeast: bigint | null): string {
  if (atLeast === null) return "possibly fewer";
  return atLeast === 0n ? "possibly none" : `at least ${formatCount(atLeast)}`;
}

/** "120 committed records, 5 aborted, 5 transaction markers[, and offsets 200–229 unknown (…)]". */
function describeSplit(split: LedgerCounts): string {
  const committed = `${formatCount(split.committed)} committed ${split.committed === 1n ? "record" : "records"}`;
  const known = `${committed}, ${formatCount(split.aborted)} aborted, ${formatCount(split.markers)} transaction ${split.markers === 1n ? "marker" : "markers"}`;
  if (split.unknown.length === 0) return known;
  const unknown = split.unknown.map((u) => formatRange(u.first, u.last)).join(", ");
  return `${known}, and offsets ${unknown} unknown (Gapwatch had not read them before they were deleted)`;
}
