import type { FlowColumns } from "@/lib/collector/flow-columns";
import { readPartitionTopic } from "@/lib/collector/flow-rows";
import type { FlowPartition } from "@/lib/collector/types";
import type { EventCandidate } from "./events";
import {
  formatCount,
  forEachFreshPartition,
  maxOffset,
  minOffset,
  namePartition,
  readJudged,
  readPartitionView,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import { CommittedText, readCommittedTable, readCommittedValues } from "./committed-marks";
import { createSlotReader } from "./mark-columns";
import { findTruncation } from "./truncation-index";
import { type CommittedMark, FindingType, Severity, type Finding } from "./types";

/** Why a reset was recognised; the evidence names it. */
export const ResetSignal = {
  TOPIC_ID_CHANGED: "topic-id-changed",
  LOG_END_REWOUND: "log-end-rewound",
  POSITION_BEYOND_LOG_END: "position-beyond-log-end",
} as const;
export type ResetSignalName = (typeof ResetSignal)[keyof typeof ResetSignal];

const reasons: Record<ResetSignalName, string> = {
  "topic-id-changed": "topic ID changed",
  "log-end-rewound": "log end went backwards",
  "position-beyond-log-end": "MM2's position is past the log end",
};

/**
 * TOPIC_RESET — a source topic was deleted and recreated: MM2 jumps to the earliest offset of the
 * new topic and copies its records after the old topic's copies, and the unreplicated tail of the
 * old topic is gone.
 *
 * NOT a reset: MM2's offset syncs rewinding with the same topic ID. That is MM2 resuming from
 * Connect's last flushed position after a worker crash, task restart or rebalance and copying
 * again what it had not committed (at-least-once delivery, up to offset.flush.interval.ms of
 * records): MM2_REDELIVERY (redelivery.ts) reports it as info, with the duplicated range.
 *
 * LOGIC — judged for partitions fresh in this cycle and the previous one (first cycle and stale
 * data: nothing), and for a fresh partition whose topic ID differs from the one its MM2_POSITION_MOVED mark
 * kept through unknown cycles or a restart (ResetBaseline; topic-id-changed only). Any signal below is a reset:
 * - topic-id-changed: both cycles know the source topic ID and it differs.
 * - log-end-rewound: sourceLogEnd went below the previous cycle's and the topic ID is not known to be
 *   the same.
 * - position-beyond-log-end: mm2Position > sourceLogEnd in this cycle AND the previous one, AND the
 *   log end read now is still below the position read last cycle. The collector reads MM2's positions
 *   after the source's log ends, so a position can pass the log end read before it: once (a race), or
 *   in every cycle when MM2 runs exactly-once (Connect commits its position with each transaction) under
 *   steady traffic (seen: hostile-records after worker-restarts, 2026-12-02). A position read last cycle
 *   can never pass a log end read this cycle unless offsets were lost.
 * Neither of the last two where the leader epoch rose between the cycles or an unclean election truncated the
 * partition (seen this cycle or held, truncation-index.ts): UNCLEAN_TRUNCATION is that event, and on a quiet
 * partition MM2's committed position stays past the new log end until new records pass it (one event, one alert).
 * * recordsToRecopy = offsets MM2 had already passed and will copy again when it resets to the
 * earliest offset of the new topic: min(logEnd, previous mm2Position) − logStart. These land on the target after the old copies:
 * duplicates when the new topic holds the same data. Null when MM2's previous position is unknown.
 * previousLag = unreplicated records of the old topic at the previous cycle (at most that many lost).
 * One finding per reset: scope `TOPIC_RESET|<flow>|<topic>|<partition>`, tagged with the new topic ID,
 * keyed by the new topic ID (or the detection time when IDs are unknown).
 */
export function detectTopicReset(ctx: DetectorContext, marks: Readonly<Record<string, CommittedMark>>): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  const found = new Set<string>();
  for (const judged of ctx.judged) {
    for (let n = 0; n < judged.slots.length; n++) {
      if (judged.exact && !mayHaveReset(judged, judged.slots[n]!)) continue;
      const { view, before } = readJudged(judged, n);
      if (judgeReset(ctx, view, before, candidates)) found.add(view.key);
    }
  }
  // The marks are columns (committed-marks.ts): only a partition whose topic ID changed reads its mark whole.
  const table = readCommittedTable(marks);
  const topicIds = table.texts[CommittedText.topicId]!;
  const slotOf = createSlotReader(table);
  // The partition's topic ID is read from its object once per run of equal ID numbers (flow-columns.ts: equal numbers
  // are equal IDs; a topic's partitions come together), not per partition.
  let lastColumns: FlowColumns | null = null;
  let lastNumber = -1;
  let lastId: string | null = null;
  forEachFreshPartition(ctx.current, (flow, columns, at, flowSlot) => {
    const key = columns.keys[flowSlot]!;
    const slot = slotOf(key);
    if (slot < 0 || table.present[slot] !== 1 || (found.size > 0 && found.has(key))) return;
    // hasTopicIdChanged against the mark's topic ID, without an object per partition.
    const topicId = topicIds[slot] ?? null;
    if (topicId === null) return;
    const number = columns.sourceTopicId[flowSlot]!;
    if (columns.duplicates || columns !== lastColumns || number !== lastNumber) {
      lastColumns = columns;
      lastNumber = number;
      lastId = readPartitionTopic(flow, at).sourceTopicId;
    }
    const now = lastId;
    if (now === null || topicId === now) return;
    const view = readPartitionView(flow, columns, at);
    const before = { sourceTopicId: topicId, sourceLogEnd: null, mm2Position: BigInt(readCommittedValues(table, slot).highest) };
    candidates.push(createResetCandidate(ctx, view, before, [ResetSignal.TOPIC_ID_CHANGED], "last-known"));
  });
  return candidates;
}

/**
 * Whether a judged partition's numbers show a signal (the steady path: numbers only): its topic ID changed, its log
 * end went backwards, or MM2's position is past the log end now and last cycle's position is past it too. NaN
 * (unknown) compares false, as the signals' null checks do.
 */
function mayHaveReset(judged: JudgedFlow, slot: number): boolean {
  const { now, was } = judged;
  const id = now.sourceTopicId[slot]!;
  const idBefore = was.sourceTopicId[slot]!;
  if (id >= 0 && idBefore >= 0 && id !== idBefore) return true;
  const logEnd = now.sourceLogEnd[slot]!;
  return logEnd < was.sourceLogEnd[slot]! || (logEnd < was.mm2Position[slot]! && now.mm2Position[slot]! > logEnd);
}

/** Adds the reset candidate of one judged partition, if it shows a signal; whether it did. */
function judgeReset(ctx: DetectorContext, view: FlowPartitionView, before: FlowPartition, candidates: EventCandidate[]): boolean {
  const now = view.partition;
  const idChanged = hasTopicIdChanged(before, now);
  // A truncation by an unclean election (seen now or held) or a leader change explains a log end below MM2's position.
  const truncated = hasEpochRisen(before, now) || findTruncation(ctx.truncations, view.flow.source, now.topic, now.partition) !== undefined;
  const rewound = !truncated && hasLogEndRewound(before, now);
  const beyond = !truncated && staysBeyondLogEnd(before, now);
  // Nothing allocated for the partitions that show no signal (all but a few of 100,000).
  if (!idChanged && !rewound && !beyond) return false;
  const signals = [idChanged && ResetSignal.TOPIC_ID_CHANGED, rewound && ResetSignal.LOG_END_REWOUND, beyond && ResetSignal.POSITION_BEYOND_LOG_END].filter(
    (s): s is ResetSignalName => s !== false,
  );
  candidates.push(createResetCandidate(ctx, view, before, signals, "previous-cycle"));
  return true;
}

/**
 * What a reset is judged against: the previous cycle's partition, or — when the partition was unknown in between
 * (the recreated topic's leaders not elected yet when a cycle read it; seen in the bench: latency-reset-3) or after a
 * restart — the topic ID and highest position MM2_POSITION_MOVED's mark kept for it (kept while unknown; written to
 * the store at once when its topic changes), so a reset is never lost to one unreadable cycle.
 */
type ResetBaseline = Pick<FlowPartition, "sourceTopicId" | "sourceLogEnd" | "mm2Position">;

function hasTopicIdChanged(before: Pick<FlowPartition, "sourceTopicId">, now: FlowPartition): boolean {
  return before.sourceTopicId !== null && now.sourceTopicId !== null && before.sourceTopicId !== now.sourceTopicId;
}

function hasLogEndRewound(before: FlowPartition, now: FlowPartition): boolean {
  if (before.sourceLogEnd === null || now.sourceLogEnd === null || now.sourceLogEnd >= before.sourceLogEnd) return false;
  return !(before.sourceTopicId !== null && before.sourceTopicId === now.sourceTopicId);
}

function hasEpochRisen(before: FlowPartition, now: FlowPartition): boolean {
  return before.sourceLeaderEpoch !== null && now.sourceLeaderEpoch !== null && now.sourceLeaderEpoch > before.sourceLeaderEpoch;
}

function staysBeyondLogEnd(before: FlowPartition, now: FlowPartition): boolean {
  const passed = before.mm2Position !== null && now.sourceLogEnd !== null && now.sourceLogEnd < before.mm2Position;
  return passed && isBeyondLogEnd(before) && isBeyondLogEnd(now);
}

function isBeyondLogEnd(partition: FlowPartition): boolean {
  return partition.mm2Position !== null && partition.sourceLogEnd !== null && partition.mm2Position > partition.sourceLogEnd;
}

function countRecopies(before: ResetBaseline, now: FlowPartition): bigint | null {
  const oldPosition = before.mm2Position;
  if (oldPosition === null) return null;
  if (now.sourceLogStart === null || now.sourceLogEnd === null) return null;
  return maxOffset(0n, minOffset(now.sourceLogEnd, oldPosition) - now.sourceLogStart);
}

function createResetCandidate(
  ctx: DetectorContext,
  view: FlowPartitionView,
  before: ResetBaseline,
  signals: ResetSignalName[],
  comparedWith: "previous-cycle" | "last-known",
): EventCandidate {
  const { flow, partition: now } = view;
  const recopy = countRecopies(before, now);
  const previousLag = before.sourceLogEnd !== null && before.mm2Position !== null ? maxOffset(0n, before.sourceLogEnd - before.mm2Position) : null;
  const tag = now.sourceTopicId ?? "";
  const recopyText = recopy === null ? "how many offsets MM2 copies again is unknown" : `MM2 copies ${formatCount(recopy)} already-passed offsets again`;
  const finding: Omit<Finding, "key" | "observedAt"> = {
    type: FindingType.TOPIC_RESET,
    severity: Severity.CRITICAL,
    flow: flow.id,
    cluster: flow.source,
    topic: now.topic,
    partition: now.partition,
    summary: `${namePartition(now.topic, now.partition)} at ${flow.source} was reset (${signals.map((s) => reasons[s]).join(", ")}): ${recopyText}`,
    evidence: {
      detectedBy: signals.join(","),
      oldTopicId: before.sourceTopicId,
      newTopicId: now.sourceTopicId,
      previousLogEnd: before.sourceLogEnd?.toString() ?? null,
      currentLogStart: now.sourceLogStart?.toString() ?? null,
      currentLogEnd: now.sourceLogEnd?.toString() ?? null,
      previousMm2Position: before.mm2Position?.toString() ?? null,
      mm2Position: now.mm2Position?.toString() ?? null,
      recordsToRecopy: recopy?.toString() ?? null,
      previousLag: previousLag?.toString() ?? null,
      comparedWith,
    },
  };
  return {
    scope: `${FindingType.TOPIC_RESET}|${flow.id}|${now.topic}|${now.partition}`,
    tag,
    keySuffix: tag === "" ? `t${ctx.now}` : tag,
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: ctx.now }),
  };
}
