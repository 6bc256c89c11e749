import type { FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import { listDownstreamTruncations } from "@/lib/mm2/exact-mapping";
import type { EventCandidate } from "./events";
import {
  countOf,
  findTopic,
  forEachJudged,
  hasNewSyncStep,
  namePartition,
  StepKind,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/** Why a target truncation was recognised; the evidence names it. */
export const TruncationSignal = {
  TARGET_LOG_END_REWOUND: "target-log-end-rewound",
  SYNC_DOWNSTREAM_REWOUND: "offset-sync-downstream-rewound",
} as const;
export type TruncationSignalName = (typeof TruncationSignal)[keyof typeof TruncationSignal];

/**
 * TARGET_TRUNCATED — offsets on the target went backwards: replicated records were removed on the
 * target (unclean election there, the target topic deleted and recreated), so consumers failing
 * over miss them and checkpoints translate to offsets that no longer hold the same records.
 *
 * LOGIC — judged only for flow partitions fresh in this cycle and the previous one. Any of:
 * - target-log-end-rewound: targetLogEnd is lower than in the previous cycle (a log end never moves
 *   back otherwise; retention and DeleteRecords move the log start only).
 * - offset-sync-downstream-rewound: a sync step new this cycle has a downstream offset at or below
 *   the previous sync's while upstream did not go back (MM2 writes that sync at once).
 * Evidence says whether the target topic ID changed (recreated) when the target cluster reports IDs.
 * One finding per partition while held: scope `TARGET_TRUNCATED|<flow>|<targetTopic>|<partition>`,
 * keyed by the target log end (or sync downstream) it fell to.
 */
export function detectTargetTruncation(ctx: DetectorContext): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  forEachJudged(ctx.judged, mayHaveTruncated, ({ view, before, syncs }) => {
    const logEndRewound = hasTargetLogEndRewound(before, view.partition);
    const syncStep = syncs.length < 2 ? null : findDownstreamRewind(syncs);
    if (!logEndRewound && syncStep === null) return;
    candidates.push(createTruncationCandidate(ctx, view, before, logEndRewound, syncStep));
  });
  return candidates;
}

function hasTargetLogEndRewound(before: FlowPartition, now: FlowPartition): boolean {
  return before.targetLogEnd !== null && now.targetLogEnd !== null && now.targetLogEnd < before.targetLogEnd;
}

function findDownstreamRewind(syncs: readonly OffsetSyncPoint[]): { from: bigint; to: bigint } | null {
  const step = listDownstreamTruncations(syncs).at(-1);
  return step === undefined ? null : { from: step.fromDownstream, to: step.toDownstream };
}

/** Whether the target topic was recreated; null when either cycle lacks the target topic ID. */
function hasTargetTopicIdChanged(ctx: DetectorContext, view: FlowPartitionView): boolean | null {
  if (ctx.previous === null) return null;
  const before = findTopic(ctx.previous, view.flow.target, view.partition.targetTopic)?.topicId ?? null;
  const now = findTopic(ctx.current, view.flow.target, view.partition.targetTopic)?.topicId ?? null;
  return before === null || now === null ? null : before !== now;
}

function createTruncationCandidate(
  ctx: DetectorContext,
  view: FlowPartitionView,
  before: FlowPartition,
  logEndRewound: boolean,
  syncStep: { from: bigint; to: bigint } | null,
): EventCandidate {
  const { flow, partition: now } = view;
  const signals = [logEndRewound && TruncationSignal.TARGET_LOG_END_REWOUND, syncStep !== null && TruncationSignal.SYNC_DOWNSTREAM_REWOUND];
  const removed = logEndRewound && before.targetLogEnd !== null && now.targetLogEnd !== null ? before.targetLogEnd - now.targetLogEnd : null;
  const fellTo = logEndRewound ? now.targetLogEnd : (syncStep?.to ?? null);
  const what =
    removed !== null
      ? `log end fell from ${before.targetLogEnd} to ${now.targetLogEnd} (${countOf(removed, "record")} gone)`
      : `MM2's offset syncs went back downstream from ${syncStep?.from} to ${syncStep?.to}`;
  const finding: Omit<Finding, "key" | "observedAt"> = {
    type: FindingType.TARGET_TRUNCATED,
    severity: Severity.CRITICAL,
    flow: flow.id,
    cluster: flow.target,
    topic: now.targetTopic,
    partition: now.partition,
    summary: `${namePartition(now.targetTopic, now.partition)} at ${flow.target} was truncated: ${what}`,
    evidence: {
      detectedBy: signals.filter((s) => s !== false).join(","),
      previousTargetLogEnd: before.targetLogEnd?.toString() ?? null,
      targetLogEnd: now.targetLogEnd?.toString() ?? null,
      removedRecords: removed?.toString() ?? null,
      syncFromDownstream: syncStep?.from.toString() ?? null,
      syncToDownstream: syncStep?.to.toString() ?? null,
      targetTopicRecreated: hasTargetTopicIdChanged(ctx, view),
      sourceTopic: now.topic,
    },
  };
  return {
    scope: `${FindingType.TARGET_TRUNCATED}|${flow.id}|${now.targetTopic}|${now.partition}`,
    tag: "",
    keySuffix: `${fellTo ?? `t${ctx.now}`}`,
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: ctx.now }),
  };
}

/** The target log end went back, or new sync steps to look at (numbers only; NaN, unknown, compares false). */
function mayHaveTruncated(judged: JudgedFlow, slot: number): boolean {
  const logEndBack = judged.now.targetLogEnd[slot]! < judged.was.targetLogEnd[slot]!;
  return logEndBack || hasNewSyncStep(judged, slot, StepKind.DOWNSTREAM_BACK);
}
