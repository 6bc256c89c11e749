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
  const max = ideal.kind === "exact" ? min : ideal.high - from;
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
  return skips(row.reread) || skips(row.checkpointReread) || skips(row.failoverReread);
}

function skips(estimate: RereadEstimate | null): boolean {
  return estimate !== null && estimate.skip !== "none";
}

/** Sums a set of partition rows (a group's, or all of a flow's), in one pass. */
export function sumTotals(rows: readonly PartitionTranslation[]): TranslationTotals {
  let rereadRecords = 0n;
  let failoverReplayRecords = 0n;
  let groupLag = 0n;
  let oldest: number | null = null;
  let translated = 0;
  let skipping = 0;
  for (const row of rows) {
    if (row.reread && row.reread.records > 0n) rereadRecords += row.reread.records;
    if (row.failoverReread && row.failoverReread.records > 0n) failoverReplayRecords += row.failoverReread.records;
    if (row.groupLag !== null && row.groupLag !== 0n) groupLag += row.groupLag;
    if (row.checkpoint && (oldest === null || row.checkpoint.ageMs > oldest)) oldest = row.checkpoint.ageMs;
    if (row.translation.kind === "translated") translated++;
    if (isSkipping(row)) skipping++;
  }
  return {
    partitions: rows.length,
    translated,
    untranslatable: rows.length - translated,
    rereadRecords,
    failoverReplayRecords,
    skippingPartitions: skipping,
    groupLag,
    oldestCheckpointAgeMs: oldest,
  };
}

/** The totals of several sets of rows together: the same as sumTotals over all their rows. */
export function addTotals(totals: readonly TranslationTotals[]): TranslationTotals {
  const sum: TranslationTotals = {
    partitions: 0,
    translated: 0,
    untranslatable: 0,
    rereadRecords: 0n,
    failoverReplayRecords: 0n,
    skippingPartitions: 0,
    groupLag: 0n,
    oldestCheckpointAgeMs: null,
  };
  for (const t of totals) {
    sum.partitions += t.partitions;
    sum.translated += t.translated;
    sum.untranslatable += t.untranslatable;
    sum.rereadRecords += t.rereadRecords;
    sum.failoverReplayRecords += t.failoverReplayRecords;
    sum.skippingPartitions += t.skippingPartitions;
    sum.groupLag += t.groupLag;
    if (t.oldestCheckpointAgeMs !== null && (sum.oldestCheckpointAgeMs === null || t.oldestCheckpointAgeMs > sum.oldestCheckpointAgeMs)) {
      sum.oldestCheckpointAgeMs = t.oldestCheckpointAgeMs;
    }
  }
  return sum;
}
