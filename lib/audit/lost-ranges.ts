import { flowPartitionKey } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findLastAtOrBefore, type SyncPoint } from "@/lib/mm2";
import type { AlertRef, AuditSample } from "./types";

/** A DATA_LOSS range the audit confirmed absent from the target. */
export interface ConfirmedLoss {
  flow: string;
  topic: string;
  partition: number;
  firstLostOffset: bigint;
  lastLostOffset: bigint;
  /** Where the copy of `lastLostOffset + 1` is (found by content); the copy of `firstLostOffset − 1` is just below. */
  targetOffset: bigint;
  confirmedAt: number;
}

interface LostRange {
  first: bigint;
  last: bigint;
}

/** The lost ranges of firing DATA_LOSS alerts, by `flowPartitionKey`. */
export function listLostRanges(alerts: readonly AlertRef[]): Map<string, LostRange[]> {
  const ranges = new Map<string, LostRange[]>();
  for (const a of alerts) {
    if (a.state !== "firing" || a.type !== FindingType.DATA_LOSS || a.flow === null || a.topic === null || a.partition === null) continue;
    const [first, last] = [a.evidence.firstLostOffset, a.evidence.lastLostOffset];
    if (typeof first !== "string" || typeof last !== "string" || !/^\d+$/.test(first) || !/^\d+$/.test(last)) continue;
    const key = flowPartitionKey(a.flow, a.topic, a.partition);
    ranges.set(key, [...(ranges.get(key) ?? []), { first: BigInt(first), last: BigInt(last) }]);
  }
  return ranges;
}

/** What confirmLostRanges reads of a flow partition, by `flowPartitionKey`. */
export interface LostRangeContext {
  /** The latest epoch of the partition's offset syncs (increasing in both offsets). */
  epoch: readonly SyncPoint[];
  sourceLogStart: bigint | null;
}

/**
 * A lost range [F, L] is confirmed missing on the target when all hold:
 * - the records are gone from the source (log start > L), so no copy can still come;
 * - this cycle's audit found the copy of source L + 1 by content exactly at its mapped target offset T;
 * - the last offset sync (u, d) below F counts exactly the records before the range between d and T:
 *   d + (F − u) = T. MM2 copies a partition in order, one target record per source record (the target offsets
 *   in [d, T) are the copies of [u, F)), so no target offset is left for any record of the range.
 * Anything else (a transaction marker or a compacted gap before the range, a range estimated too small, no sync
 * below it) confirms nothing: the range stays as DATA_LOSS states it.
 */
export function confirmLostRanges(
  flow: string,
  ranges: ReadonlyMap<string, readonly LostRange[]>,
  samples: readonly AuditSample[],
  contextOf: (key: string) => LostRangeContext | null,
  now: number,
): ConfirmedLoss[] {
  const confirmed: ConfirmedLoss[] = [];
  for (const s of samples) {
    if (s.outcome !== "matched" || s.bracketed || s.sourceOffset === null || s.flow !== flow) continue;
    const key = flowPartitionKey(s.flow, s.topic, s.partition);
    const range = ranges.get(key)?.find((r) => r.last + 1n === s.sourceOffset);
    const context = range === undefined ? null : contextOf(key);
    if (range === undefined || context === null || context.sourceLogStart === null || context.sourceLogStart <= range.last) continue;
    const before = context.epoch[findLastAtOrBefore(context.epoch, range.first - 1n)];
    const target = s.targetOffsets[0]!;
    if (before === undefined || before.downstream + (range.first - before.upstream) !== target) continue;
    confirmed.push({ flow, topic: s.topic, partition: s.partition, firstLostOffset: range.first, lastLostOffset: range.last, targetOffset: target, confirmedAt: now });
  }
  return confirmed;
}
