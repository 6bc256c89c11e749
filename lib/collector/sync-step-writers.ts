import { type ClusterReader, type FetchedRecord, isItemError } from "@/lib/kafka";
import type { SyncPoint } from "@/lib/mm2";
import { readSyncHistories, type SyncHistories, type SyncHistory, type SyncHistorySource } from "./sync-history";
import { type PartitionFields, readPartitionFields } from "./partition-fields";
import type { Flow, FlowPartition } from "./types";
import { tailBatchBytes } from "./unreplicated-tail";

/** Why a partition's target is not MM2's alone, shown in its row (lib/collector/target-density.ts shows it the same way). */
export const interleavedReason = (a: SyncPoint, b: SyncPoint, at: bigint) =>
  `the target holds records between MM2's offset syncs ${a.upstream}→${a.downstream} and ${b.upstream}→${b.downstream} ` +
  `that are not MM2's copies (offset ${at} is not MM2's copy of source offset ${b.upstream}): another producer writes to the target topic`;

/** What an offset-sync step's check reads of its partition. */
export type StepPartition = Pick<FlowPartition, "targetTopic" | "partition" | "targetLogStart" | "targetLogEnd">;

/** One offset-sync step whose target holds more records than upstream offsets, and where to read it. */
export interface ExcessStep {
  key: string;
  partition: StepPartition;
  from: SyncPoint;
  to: SyncPoint;
  /** Where MM2's first copy of `to.upstream` is if the records after `from` are MM2's copies alone. */
  firstCopyAt: bigint;
}

/**
 * The newest step of a partition's sync history, after `checkedTo` (the newest downstream offset already looked at),
 * that holds more target records than upstream offsets: (u1, d1) → (u2, d2) with u2 ≥ u1 and d2 − d1 > u2 − u1.
 * After a sync MM2 copies consecutive upstream offsets (OffsetSyncWriter writes a sync at once at any upstream gap),
 * so the extra records are either MM2's second copies after a restart (MM2_REDELIVERY) or another producer's. A step
 * back (u2 < u1) is always MM2 resuming lower, never another writer. Null when there is none or it is not readable.
 */
export function findExcessStep(
  history: SyncHistory,
  checkedTo: bigint | undefined,
  p: StepPartition,
): Omit<ExcessStep, "key"> | null {
  for (let i = history.length - 1; i > 0; i--) {
    const to = history.point(i);
    if (checkedTo !== undefined && to.downstream <= checkedTo) return null;
    const from = history.point(i - 1);
    const advance = to.upstream - from.upstream;
    if (advance < 0n || to.downstream - from.downstream <= advance) continue;
    const firstCopyAt = from.downstream + advance;
    // Both records must still be on the target (retention may have deleted the older one).
    if (p.targetLogStart !== null && firstCopyAt < p.targetLogStart) return null;
    if (p.targetLogEnd === null || to.downstream >= p.targetLogEnd) continue;
    return { partition: p, from, to, firstCopyAt };
  }
  return null;
}

/**
 * Tells MM2's second copies from another producer's records where an offset-sync step holds more target records
 * than upstream offsets (findExcessStep): if the records after the earlier sync are MM2's copies alone, the record
 * at `firstCopyAt` is MM2's first copy of the later sync's upstream offset, and the record at the later sync's
 * downstream offset its second copy: the same key and value. Different records mean another producer writes to the
 * target (IdentityReplicationPolicy with a local producer on the same-named topic, or any writer on a remote topic):
 * the partition joins `untrustedTargets` with the reason, so MM2_REDELIVERY and derived positions no longer count
 * those records as MM2's. Two group-less Fetches per flow (the first copies, the later syncs' records), only for
 * partitions with such a step new since the last look; a step whose records are markers or unreadable is left as is.
 */
export async function checkSyncStepWriters(
  flows: readonly Flow[],
  readers: ReadonlyMap<string, ClusterReader>,
  syncHistory: SyncHistorySource,
  checkedTo: Map<string, bigint>,
  untrustedTargets: Map<string, string>,
): Promise<{ found: Set<string>; errors: string[] }> {
  const found = new Set<string>();
  const errors: string[] = [];
  for (const flow of flows) {
    const steps = listExcessSteps(flow, readSyncHistories(syncHistory), checkedTo, untrustedTargets);
    const reader = readers.get(flow.target);
    if (!reader || steps.length === 0) continue;
    try {
      const read = (offset: (s: ExcessStep) => bigint) =>
        reader.fetchPartitions(
          steps.map((s) => ({ topic: s.partition.targetTopic, partition: s.partition.partition, offset: offset(s) })),
          { maxBytes: tailBatchBytes, maxWaitMs: 0 },
        );
      const [first, second] = [await read((s) => s.firstCopyAt), await read((s) => s.to.downstream)];
      for (const s of steps) {
        const at = `${s.partition.targetTopic}/${s.partition.partition}`;
        const [a, b] = [first.get(at), second.get(at)];
        if (a === undefined || b === undefined || isItemError(a) || isItemError(b) || a.controlBatches > 0) continue;
        const firstCopy = a.records.find((r) => r.offset === s.firstCopyAt);
        const secondCopy = b.records.find((r) => r.offset === s.to.downstream);
        if (firstCopy === undefined || secondCopy === undefined || isSameRecord(firstCopy, secondCopy)) continue;
        untrustedTargets.set(s.key, interleavedReason(s.from, s.to, s.firstCopyAt));
        found.add(s.key);
      }
    } catch (err) {
      errors.push(`checking the target records between offset syncs of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { found, errors };
}

/** The steps of one flow to read this cycle; moves each partition's `checkedTo` to its newest sync. */
function listExcessSteps(
  flow: Flow,
  syncHistory: SyncHistories,
  checkedTo: Map<string, bigint>,
  untrustedTargets: ReadonlyMap<string, string>,
): ExcessStep[] {
  const steps: ExcessStep[] = [];
  const fields = readPartitionFields(flow);
  for (let i = 0; i < fields.count; i++) {
    const latestSync = fields.latestSync(i);
    if (latestSync === null) continue;
    const key = fields.key(i);
    // A newest sync below the last one looked at: the target was truncated or recreated; look at its whole history.
    const last = checkedTo.get(key);
    const seen = last !== undefined && last > latestSync.downstream ? undefined : last;
    if (seen === latestSync.downstream || untrustedTargets.has(key)) continue;
    const history = syncHistory.get(key);
    const step = history === undefined ? null : findExcessStep(history, seen, readStepPartition(fields, i));
    checkedTo.set(key, latestSync.downstream);
    if (step !== null) steps.push({ key, ...step });
  }
  return steps;
}

function readStepPartition(fields: PartitionFields, i: number): StepPartition {
  return {
    targetTopic: fields.targetTopic(i),
    partition: fields.partition(i),
    targetLogStart: fields.offset(i, "targetLogStart"),
    targetLogEnd: fields.offset(i, "targetLogEnd"),
  };
}

function isSameRecord(a: FetchedRecord, b: FetchedRecord): boolean {
  return sameBytes(a.key, b.key) && sameBytes(a.value, b.value);
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}
