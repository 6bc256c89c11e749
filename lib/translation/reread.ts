/**
 * Re-read arithmetic and totals. A consumer that resumes at target offset `from` re-reads
 * `ideal − from` records (the ideal position is where the group really was); a negative count is
 * records it would SKIP. Pure.
 */
import type { IdealOffset, PartitionTranslation, RereadEstimate, TranslationTotals } from "./types";

/** ideal − from, with bracket bounds (min from the low bound, max from the high bound). */
export function estimateReread(ideal: IdealOffset, from: bigint | null): RereadEstimate | null {
  if (from === null || ideal.kind === "unknown") return null;
  const min = (ideal.kind === "exact" ? ideal.downstream : ideal.low) - from;
  const max = (ideal.kind === "exact" ? ideal.downstream : ideal.high) - from;
  const skip = max < 0n ? "certain" : min < 0n ? "possible" : "none";
  return { min, max, records: max, skip };
}

/** Where a failover with MM2's offsets resumes: the latest checkpoint, else the model's translation. */
export function selectMirrorMakerOffset(row: Pick<PartitionTranslation, "checkpoint" | "translation">): { offset: bigint; source: "checkpoint" | "model" } | null {
  if (row.checkpoint) return { offset: row.checkpoint.downstream, source: "checkpoint" };
  if (row.translation.kind === "translated") return { offset: row.translation.downstream, source: "model" };
  return null;
}

/** Whether MM2's translation or its latest checkpoint would make this partition skip records. */
export function isSkipping(row: Pick<PartitionTranslation, "reread" | "checkpointReread" | "failoverReread">): boolean {
  return [row.reread, row.checkpointReread, row.failoverReread].some((r) => r !== null && r.skip !== "none");
}

/** Sums a set of partition rows (a group's, or all of a flow's). */
export function sumTotals(rows: readonly PartitionTranslation[]): TranslationTotals {
  let rereadRecords = 0n;
  let failoverReplayRecords = 0n;
  let groupLag = 0n;
  let oldest: number | null = null;
  for (const row of rows) {
    if (row.reread && row.reread.records > 0n) rereadRecords += row.reread.records;
    if (row.failoverReread && row.failoverReread.records > 0n) failoverReplayRecords += row.failoverReread.records;
    if (row.groupLag !== null) groupLag += row.groupLag;
    if (row.checkpoint && (oldest === null || row.checkpoint.ageMs > oldest)) oldest = row.checkpoint.ageMs;
  }
  const translated = rows.filter((r) => r.translation.kind === "translated").length;
  return {
    partitions: rows.length,
    translated,
    untranslatable: rows.length - translated,
    rereadRecords,
    failoverReplayRecords,
    skippingPartitions: rows.filter(isSkipping).length,
    groupLag,
    oldestCheckpointAgeMs: oldest,
  };
}
