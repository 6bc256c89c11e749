import { readPartitionSettings } from "@/lib/collector/partition-settings";
import type { CopierChange, FlowPartition } from "@/lib/collector/types";
import { listUpstreamGaps } from "@/lib/mm2/exact-mapping";
import type { EventCandidate, OffsetRange } from "./events";
import { FlowFlag } from "@/lib/collector/flow-columns";
import {
  forEachJudged,
  formatCount,
  formatRange,
  namePartition,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * TOPIC_CHANGED_CONNECTOR (warning, an event) — a source topic moved from one MirrorSourceConnector's filter to
 * another's (flows split over several connectors). Connect keeps offsets per connector, so the new one holds none
 * for the topic: MirrorSourceTask.initializeConsumer seeks only partitions with a committed offset, and the others
 * start where the consumer's `auto.offset.reset` puts them (MM2's default "earliest"):
 * - earliest: the new connector copies the partition again from its log start S: [S, P − 1] (P: the position the
 *   connector before had reached) are on the target twice. Exact from the log start and P seen at the change.
 * - latest: it starts at the log end L: [P, L − 1] are never copied. Exact from the first offset-sync step of the
 *   new connector (MM2 writes a sync at any upstream jump): the step skips upstream [P, L − 1]; nothing is
 *   reported while no such step is seen (a quiet topic: nothing was skipped).
 * Not a move by hand (MM2_POSITION_MOVED), a redelivery (MM2_REDELIVERY) or a reset skip (MM2_SKIPPED_BY_RESET):
 * those rules leave the partition's change to this one. Judged on partitions fresh in this and the previous cycle
 * while the collector holds the change (FlowPartition.copierChange, 10 minutes); `none` makes the new connector's
 * task fail (TASK_FAILED). Key `TOPIC_CHANGED_CONNECTOR|<flow>|<topic>|<partition>|<time of the change>`.
 */
export function detectCopierChanges(ctx: DetectorContext): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  forEachJudged(ctx.judged, hasCopierChange, ({ view, syncs }) => {
    const change = view.partition.copierChange;
    if (change === undefined || change.fromPosition === null) return;
    const reset = readPartitionSettings(view.flow, view.partition).autoOffsetReset;
    const range = reset === "latest" ? findSkip(change, syncs) : reset === "earliest" ? findRecopy(change) : null;
    if (range !== null) candidates.push(createChangeCandidate(view, change, reset, range));
  });
  return candidates;
}

/** Whether an offset-sync gap starting at `first` is the skip of a copier change (reported by this rule). */
export function isCopierChangeSkip(partition: FlowPartition, first: bigint): boolean {
  return partition.copierChange !== undefined && partition.copierChange.fromPosition === first;
}

/** Whether a re-copied range ending at `last` lies below where the connector before had reached (this rule's). */
export function isCopierChangeRecopy(partition: FlowPartition, last: bigint): boolean {
  const from = partition.copierChange?.fromPosition;
  return from !== undefined && from !== null && last < from;
}

function findRecopy(change: CopierChange): OffsetRange | null {
  const start = change.logStartAtChange;
  if (start === null || change.fromPosition === null || change.fromPosition <= start) return null;
  return { first: start, last: change.fromPosition - 1n, exact: true };
}

function findSkip(change: CopierChange, syncs: readonly { upstream: bigint; downstream: bigint }[]): OffsetRange | null {
  for (const gap of listUpstreamGaps(syncs)) {
    const first = gap.toUpstream - gap.skippedUpstream;
    if (first === change.fromPosition && gap.toUpstream > first) return { first, last: gap.toUpstream - 1n, exact: true };
  }
  return null;
}

function createChangeCandidate(view: FlowPartitionView, change: CopierChange, reset: string, range: OffsetRange): EventCandidate {
  const { flow, partition } = view;
  const count = range.last - range.first + 1n;
  const records = `${formatCount(count)} ${count === 1n ? "record" : "records"}`;
  const where = namePartition(partition.topic, partition.partition);
  const moved = `${partition.topic} moved from source connector ${change.from} to ${partition.sourceConnector ?? "?"}`;
  const summary =
    reset === "latest"
      ? `${moved}, which holds no offsets for it and has auto.offset.reset=latest: it started ${where} at the log end, ` +
        `${records} never copied to ${flow.target} (offsets ${formatRange(range.first, range.last)})`
      : `${moved}, which holds no offsets for it and starts from the log start (auto.offset.reset=earliest): ` +
        `${where} offsets ${formatRange(range.first, range.last)} are copied again (${records} twice on ${flow.target})`;
  const finding: Omit<Finding, "key"> = {
    type: FindingType.TOPIC_CHANGED_CONNECTOR,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.source,
    topic: partition.topic,
    partition: partition.partition,
    summary,
    evidence: {
      fromConnector: change.from,
      toConnector: partition.sourceConnector,
      autoOffsetReset: reset,
      outcome: reset === "latest" ? "skipped" : "copied-again",
      previousPosition: change.fromPosition?.toString() ?? null,
      firstAffectedOffset: range.first.toString(),
      lastAffectedOffset: range.last.toString(),
      affectedCount: count.toString(),
      changedAt: change.at,
      targetTopic: partition.targetTopic,
    },
    observedAt: 0,
  };
  return {
    scope: `${FindingType.TOPIC_CHANGED_CONNECTOR}|${flow.id}|${partition.topic}|${partition.partition}`,
    tag: String(change.at),
    keySuffix: String(change.at),
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: firstSeen }),
  };
}

/** Only a partition whose topic moved to another connector is judged (the steady path: its flag, a number). */
function hasCopierChange(judged: JudgedFlow, slot: number): boolean {
  return (judged.now.flags[slot]! & FlowFlag.COPIER_CHANGE) !== 0;
}
