/**
 * Pure detectors over a FlowTranslation: TRANSLATION_ERROR, and CHECKPOINT_STALE's threshold and finding (the watch
 * that judges it between cycles: checkpoint-watch.ts). No I/O, no clock.
 */
import { defaultThresholds } from "@/lib/config/thresholds";
import { type Evidence, type Finding, FindingType, type SeverityName } from "./types";
import type { CheckpointTiming } from "@/lib/mm2";
import {
  type FlowTranslation, type GroupTranslation, isSkipping, type PartitionTranslation, readGroupRows,
  readOwedDownstream,
} from "@/lib/translation";

/** Thresholds of both detectors. */
export interface TranslationThresholds {
  /** TRANSLATION_ERROR (warning) when a group's failover replay exceeds this many records. */
  replayRecords: number;
  /** CHECKPOINT_STALE after this long (ms) for every group, when the operator set it; else resolveCheckpointStaleMs. */
  checkpointStaleMs?: number;
}

/**
 * Defaults from lib/detect's thresholds: 10,000 records (a caught-up group already re-reads up to
 * offset.lag.max = 100 records per partition, MM2's normal sync spacing); CHECKPOINT_STALE's
 * threshold from MM2's own settings.
 */
export const defaultTranslationThresholds: TranslationThresholds = {
  replayRecords: defaultThresholds.translationReplayRecords,
};

/**
 * Never below this: a checkpoint is written, then read by Gapwatch's next poll; a new group first waits for MM2's
 * task reconfiguration (a Connect rebalance), which took over 30 s on a loaded sandbox with 5 s intervals.
 */
const minCheckpointStaleMs = 60_000;

/**
 * How long a checkpoint may be owed before CHECKPOINT_STALE, from the checkpoint connector's timing
 * (MirrorCheckpointConnector / MirrorCheckpointTask):
 * | group                                  | threshold                                               |
 * | MM2 already checkpoints it             | max(3 × emit interval, 60 s), or the operator's override |
 * | never checkpointed (MM2 may not know it) | max(refresh.groups interval + 3 × emit interval, 60 s, the override) |
 * | emit (or, for a new group, refresh) disabled | null: MM2 owes nothing, never flagged               |
 * An operator's `thresholds.checkpointStaleMs` sets the first; for a group never checkpointed it can only lengthen
 * the wait: MM2 learns of a new group only at its next group refresh (MirrorCheckpointConnector.refreshConsumerGroups
 * then reconfigures its tasks), so an alert sooner would fire on every new group. Emit disabled still wins.
 */
export function resolveCheckpointStaleMs(timing: CheckpointTiming, checkpointedBefore: boolean, overrideMs?: number): number | null {
  if (timing.emitIntervalMs === null) return null;
  if (checkpointedBefore) return overrideMs ?? Math.max(3 * timing.emitIntervalMs, minCheckpointStaleMs);
  if (timing.refreshGroupsIntervalMs === null) return overrideMs ?? null;
  return Math.max(timing.refreshGroupsIntervalMs + 3 * timing.emitIntervalMs, minCheckpointStaleMs, overrideMs ?? 0);
}

/**
 * Whether a partition's latest checkpoint is ahead of its group only because the group was moved back upstream and
 * MM2 is still within its time to emit the rewound checkpoint (CheckpointWatchState.isAwaitingRewoundCheckpoint).
 */
export type AwaitingRewoundCheckpoint = (group: GroupTranslation, row: PartitionTranslation) => boolean;

/**
 * TRANSLATION_ERROR, one finding per group at most:
 * | condition                                                                  | severity |
 * | any partition where MM2's translation or latest checkpoint skips records   | critical |
 * | records replayed if we fail over now (failoverReplayRecords) > threshold   | warning  |
 * Brackets count with their conservative bound (reread.ts). A group whose offsets are unknown this
 * cycle is not judged. Not a skip: a latest checkpoint ahead of a group moved back upstream while MM2 still has
 * time to emit the rewound one (`awaitingRewound`; MirrorCheckpointTask.checkpointIsMoreRecent emits on an upstream
 * rewind, so checkpoints go backwards with the group — Kafka's testOffsetTranslationBehindReplicationFlow). The
 * rows keep showing the skip a failover would make now; the alert waits until the checkpoint is overdue
 * (CHECKPOINT_STALE's threshold), when both fire.
 */
export function detectTranslationErrors(
  ft: FlowTranslation,
  now: number,
  thresholds: TranslationThresholds = defaultTranslationThresholds,
  awaitingRewound: AwaitingRewoundCheckpoint = () => false,
): Finding[] {
  const findings: Finding[] = [];
  const replayThreshold = BigInt(thresholds.replayRecords);
  for (const g of ft.groups) {
    if (g.unknown !== null) continue;
    const skipping = listAlertingSkips(g, awaitingRewound);
    const replay = g.totals.failoverReplayRecords;
    if (skipping.length === 0 && replay <= replayThreshold) continue;
    const severity: SeverityName = skipping.length > 0 ? "critical" : "warning";
    const summary =
      skipping.length > 0
        ? `Group ${g.group} would SKIP records on failover to ${ft.target}: ${skipping.length} partition(s) (${skipping.slice(0, 5).map(describeSkip).join("; ")})`
        : `Group ${g.group} would re-read ${replay} records if it failed over to ${ft.target} now (threshold ${thresholds.replayRecords})`;
    const evidence: Evidence = {
      failoverReplayRecords: replay.toString(),
      rereadRecords: g.totals.rereadRecords.toString(),
      skippingPartitions: skipping.length,
      skippedRecords: sumSkipped(skipping).toString(),
      thresholdRecords: String(thresholds.replayRecords),
      partitions: g.totals.partitions,
    };
    findings.push({ key: `TRANSLATION_ERROR|${ft.flow}|${g.group}`, type: FindingType.TRANSLATION_ERROR, severity, flow: ft.flow, cluster: ft.source, group: g.group, summary, evidence, observedAt: now });
  }
  return findings;
}

const noRows: readonly PartitionTranslation[] = Object.freeze([]);

/**
 * The group's skipping rows in order (listSkippingRows), less those skipping only by a checkpoint MM2 still has time
 * to rewind (`awaitingRewound`); read from the columns, a row made only where one skips (no array per group).
 */
function listAlertingSkips(g: GroupTranslation, awaitingRewound: AwaitingRewoundCheckpoint): readonly PartitionTranslation[] {
  const rows = readGroupRows(g);
  let skipping: PartitionTranslation[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    if (!rows.isSkipping(i)) continue;
    const p = rows.row(i);
    if (isSkippingByCheckpointOnly(p) && awaitingRewound(g, p)) continue;
    (skipping ??= []).push(p);
  }
  return skipping ?? noRows;
}

/** Per `flow|group|topic|partition`: since when MM2 owes a newer checkpoint than the one it has. */
export type CheckpointWatch = Record<string, { checkpoint: string | null; dueSince: number }>;

/** Whether only the latest checkpoint skips records here: MM2's translation of the committed offset does not. */
function isSkippingByCheckpointOnly(p: PartitionTranslation): boolean {
  return !isSkipping({ reread: p.reread, checkpointReread: null, failoverReread: p.checkpoint === null ? p.failoverReread : null });
}

/** The downstream offset MM2 owes as a checkpoint, or null when it owes none. */
export function isCheckpointOwed(p: PartitionTranslation): bigint | null {
  return readOwedDownstream(p);
}

/** A CHECKPOINT_STALE finding of one group partition, owed for `owedMs`. */
export function staleFinding(
  ft: FlowTranslation,
  g: GroupTranslation,
  p: PartitionTranslation,
  { expected, owedMs, thresholdMs }: { expected: bigint; owedMs: number; thresholdMs: number },
  now: number,
): Finding {
  const c = p.checkpoint;
  const evidence = {
    committed: p.committed.toString(),
    checkpointUpstream: c ? c.upstream.toString() : null,
    checkpointDownstream: c ? c.downstream.toString() : null,
    checkpointAgeMs: c ? c.ageMs : null,
    expectedDownstream: expected.toString(),
    owedForMs: owedMs,
    thresholdMs,
    emitIntervalMs: ft.checkpointTiming.emitIntervalMs,
    refreshGroupsIntervalMs: ft.checkpointTiming.refreshGroupsIntervalMs,
  };
  return {
    key: `CHECKPOINT_STALE|${ft.flow}|${g.group}|${p.topic}|${p.partition}`,
    type: FindingType.CHECKPOINT_STALE,
    severity: "warning",
    flow: ft.flow,
    cluster: ft.target,
    topic: p.topic,
    partition: p.partition,
    group: g.group,
    summary: describeStaleCheckpoint(g.group, p.topic, p.partition, evidence),
    evidence,
    observedAt: now,
  };
}

/** CHECKPOINT_STALE's summary, from its evidence (the owed time in whole minutes). */
function describeStaleCheckpoint(group: string, topic: string, partition: number, e: Evidence): string {
  const minutes = Math.round(Number(e.owedForMs) / 60_000);
  return e.checkpointUpstream !== null
    ? `MM2 has not checkpointed ${group} on ${topic}/${partition} for ${minutes} min: committed ${e.committed}, latest checkpoint ${e.checkpointUpstream}→${e.checkpointDownstream}, MM2 should emit →${e.expectedDownstream}`
    : `MM2 has never checkpointed ${group} on ${topic}/${partition} (committed ${e.committed}, translatable to ${e.expectedDownstream}) for ${minutes} min`;
}

/**
 * A CHECKPOINT_STALE finding as it reads at `at`: its clocks (owedForMs, checkpointAgeMs) moved by `at − observedAt`,
 * its summary said again. The caller keeps a finding time-free by restating it at its debt's start (owedForMs 0)
 * and restores it at the time it reads it; any other finding is returned as it is.
 */
export function restateStaleCheckpoint(finding: Finding, at: number): Finding {
  const { evidence: e, group, topic, partition } = finding;
  if (finding.type !== FindingType.CHECKPOINT_STALE || group === undefined || topic === undefined || partition === undefined) return finding;
  const shift = at - finding.observedAt;
  const age = e.checkpointAgeMs;
  const evidence = { ...e, owedForMs: Number(e.owedForMs) + shift, checkpointAgeMs: typeof age === "number" ? age + shift : (age ?? null) };
  return { ...finding, summary: describeStaleCheckpoint(group, topic, partition, evidence), evidence, observedAt: at };
}

function describeSkip(p: PartitionTranslation): string {
  const worst = [p.reread, p.checkpointReread, p.failoverReread].filter((r) => r !== null && r.skip !== "none").sort((a, b) => (a!.max < b!.max ? -1 : 1))[0];
  const n = worst ? -worst.max : 0n;
  return worst?.skip === "certain" ? `${p.topic}/${p.partition}: ${n} records` : `${p.topic}/${p.partition}: up to ${-(worst?.min ?? 0n)} records`;
}

function sumSkipped(rows: readonly PartitionTranslation[]): bigint {
  return rows.reduce((sum, p) => {
    const worst = [p.reread, p.checkpointReread, p.failoverReread].reduce<bigint>((m, r) => (r !== null && r.max < m ? r.max : m), 0n);
    return sum - worst;
  }, 0n);
}
