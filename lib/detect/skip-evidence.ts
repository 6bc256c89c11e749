import type { FlowPartition } from "@/lib/collector/types";
import type { OffsetRange } from "./events";

/**
 * Whether two views of a flow partition belong to one topic and one log: same source topic ID (when both are
 * known) and a log end that did not go backwards. Otherwise the change is TOPIC_RESET's business, and neither
 * DATA_LOSS nor MM2_SKIPPED_BY_RESET compares positions across it.
 */
export function isSameTopicEpoch(before: FlowPartition, now: FlowPartition): boolean {
  const { sourceTopicId } = now;
  if (before.sourceTopicId !== null && sourceTopicId !== null && before.sourceTopicId !== sourceTopicId) return false;
  return before.sourceLogEnd === null || now.sourceLogEnd === null || now.sourceLogEnd >= before.sourceLogEnd;
}

/** The evidence fields DATA_LOSS and MM2_SKIPPED_BY_RESET end with: how the range was seen and what was read. */
export interface SkipEvidenceTail {
  exact: boolean;
  detectedBy: string;
  seenAt: number;
  sourceLogStart: string | null;
  mm2Position: string | null;
  targetTopic: string;
}

/** Builds the shared end of a skip's evidence from the (merged) range, the signal(s) and the partition as read. */
export function describeSkipTail(
  partition: FlowPartition,
  range: OffsetRange,
  detectedBy: string,
  seenAt: number,
): SkipEvidenceTail {
  return {
    exact: range.exact,
    detectedBy,
    seenAt,
    sourceLogStart: partition.sourceLogStart?.toString() ?? null,
    mm2Position: partition.mm2Position?.toString() ?? null,
    targetTopic: partition.targetTopic,
  };
}
