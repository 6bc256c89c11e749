import { FlowFlag } from "@/lib/collector/flow-columns";
import type { FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import type { EventCandidate, OffsetRange } from "./events";
import {
  forEachJudged,
  formatCount,
  formatRange,
  hasNewSyncStep,
  namePartition,
  StepKind,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import { isCopierChangeRecopy } from "./copier-changed";
import { isRewindToDivergence } from "./truncation-consequences";
import { findTruncation } from "./truncation-index";
import { FindingType, Severity, type Finding } from "./types";

/** One re-copied range seen in one offset-sync step. */
interface Redelivery {
  range: OffsetRange;
  /** Target offset of the first second copy (the record at `range.first` written again). */
  secondCopyAt: bigint;
}

/**
 * MM2_REDELIVERY (info) — MM2 resumed below what it had already copied and copied those records a
 * second time: a Connect worker crash (SIGKILL, OOM, node loss), a task restart or rebalance before
 * the offsets were flushed (offset.flush.interval.ms, 60 s by default), a connector re-created
 * under its name. Ordinary at-least-once delivery: duplicates on the target, no loss.
 *
 * LOGIC — per offset-sync step new this cycle, (u1, d1) → (u2, d2), on a partition fresh in this
 * and the previous cycle with the same topic ID and a log end that did not go back (else that is
 * TOPIC_RESET), and the target not truncated (d2 ≥ d1):
 * - after a sync MM2 copies consecutive upstream offsets (it writes a sync at once at any upstream
 *   gap, OffsetSyncWriter 3.5+), so the target's d2 − d1 records after d1 are upstream u1 … u1 + d2 − d1 − 1;
 * - the first record MM2 copies after a (re)start always gets a sync (first sync of the task), so
 *   u2 is where it resumed. When u2 < u1 + (d2 − d1), upstream [u2, u1 + d2 − d1 − 1] was copied
 *   twice: count (d2 − d1) − (u2 − u1); the second copies start at target offset d2;
 * - the duplicated offsets must exist in this topic (last < source log end), which leaves out a
 *   recreated topic's first syncs.
 * Not a redelivery: a step back to exactly where the source's new leader diverges after an unclean
 * election (MM2's consumer detects the truncation, KIP-320, and copies the new records there), or
 * into the lost range of a truncation held in memory (a rewind read cycles after the election: the
 * records at those offsets are new ones, not second copies; UNCLEAN_TRUNCATION says so).
 * Not judged where the target is known not to be dense (targetDensityIssue: exactly-once MM2
 * writes transaction markers, another producer writes records), which would look like extra copies.
 * One event per partition and restart: key `MM2_REDELIVERY|<flow>|<topic>|<partition>|<first>`.
 */
export function detectRedelivery(ctx: DetectorContext): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  forEachJudged(ctx.judged, mayRedeliver, ({ view, before, syncs }) => {
    // Only new sync steps show a redelivery. A target that is not dense (EOS markers, other
    // writers) advances more than MM2 copies.
    if (syncs.length < 2 || !isSameTopic(before, view.partition) || view.partition.targetDensityIssue !== null) return;
    for (const found of findRedeliveries(syncs, view.partition.sourceLogEnd)) {
      // MM2 following an unclean truncation copies new records at reused offsets: UNCLEAN_TRUNCATION says so.
      if (isRewindToDivergence(ctx.current, view.flow.source, view.partition.topic, view.partition.partition, found.range.first)) continue;
      if (isIntoTruncation(ctx, view, found.range.first)) continue;
      // A topic moved to another source connector that starts from the log start: TOPIC_CHANGED_CONNECTOR says so.
      if (isCopierChangeRecopy(view.partition, found.range.last)) continue;
      candidates.push(createRedeliveryCandidate(view, found));
    }
  });
  return candidates;
}

/** A step back to a source offset inside a truncated range (seen or held): the records there now are new ones. */
function isIntoTruncation(ctx: DetectorContext, view: FlowPartitionView, first: bigint): boolean {
  const truncation = findTruncation(ctx.truncations, view.flow.source, view.partition.topic, view.partition.partition);
  return truncation !== undefined && first >= truncation.first && first <= truncation.last;
}

function isSameTopic(before: FlowPartition, now: FlowPartition): boolean {
  if (before.sourceTopicId !== null && now.sourceTopicId !== null && before.sourceTopicId !== now.sourceTopicId) return false;
  return before.sourceLogEnd === null || now.sourceLogEnd === null || now.sourceLogEnd >= before.sourceLogEnd;
}

function findRedeliveries(syncs: readonly OffsetSyncPoint[], logEnd: bigint | null): Redelivery[] {
  const found: Redelivery[] = [];
  for (let i = 1; i < syncs.length; i++) {
    const a = syncs[i - 1]!;
    const b = syncs[i]!;
    const written = b.downstream - a.downstream;
    const copied = written - (b.upstream - a.upstream);
    if (written < 0n || copied <= 0n) continue;
    const last = b.upstream + copied - 1n;
    if (logEnd !== null && last >= logEnd) continue;
    found.push({ range: { first: b.upstream, last, exact: true }, secondCopyAt: b.downstream });
  }
  return found;
}

function createRedeliveryCandidate(view: FlowPartitionView, found: Redelivery): EventCandidate {
  const { flow, partition } = view;
  return {
    scope: `${FindingType.MM2_REDELIVERY}|${flow.id}|${partition.topic}|${partition.partition}`,
    tag: "",
    keySuffix: found.range.first.toString(),
    range: found.range,
    render: (key, merged, firstSeen): Finding => {
      const r = merged ?? found.range;
      const count = r.last - r.first + 1n;
      // Target offsets are known for one step; a range merged from several steps has no single start.
      const single = r.first === found.range.first && r.last === found.range.last;
      const where = single ? ` (the second copies are ${partition.targetTopic} offsets ${formatRange(found.secondCopyAt, found.secondCopyAt + count - 1n)})` : "";
      return {
        key,
        type: FindingType.MM2_REDELIVERY,
        severity: Severity.INFO,
        flow: flow.id,
        cluster: flow.target,
        topic: partition.topic,
        partition: partition.partition,
        summary:
          `MM2 restarted and copied ${formatCount(count)} ${count === 1n ? "record" : "records"} of ` +
          `${namePartition(partition.topic, partition.partition)} again: source offsets ${formatRange(r.first, r.last)} ` +
          `are on ${flow.target} twice${where}`,
        evidence: {
          firstDuplicateOffset: r.first.toString(),
          lastDuplicateOffset: r.last.toString(),
          duplicateCount: count.toString(),
          targetTopic: partition.targetTopic,
          firstSecondCopyTargetOffset: single ? found.secondCopyAt.toString() : null,
          seenAt: firstSeen,
        },
        observedAt: firstSeen,
      };
    },
  };
}

/**
 * Only new sync steps onto a dense target show a redelivery (the steady path: a partition without any is skipped on
 * its numbers).
 */
function mayRedeliver(judged: JudgedFlow, slot: number): boolean {
  const dense = (judged.now.flags[slot]! & FlowFlag.TARGET_NOT_DENSE) === 0;
  return dense && hasNewSyncStep(judged, slot, StepKind.RECOPY);
}
