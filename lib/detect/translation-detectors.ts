/**
 * Pure detectors over a FlowTranslation: TRANSLATION_ERROR and CHECKPOINT_STALE. No I/O, no clock.
 */
import { internPrefixedPartitionKey } from "@/lib/collector/partition-keys";
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

/**
 * CHECKPOINT_STALE, one finding per group/partition (warning). MM2 owes a checkpoint when its
 * translation is ≥ 0 and (a) there is no checkpoint yet, or (b) the committed offset moved away
 * from the checkpoint's upstream offset AND MirrorCheckpointTask would emit it
 * (checkpointIsMoreRecent: committed < checkpoint upstream [rewind], or translation > checkpoint
 * downstream). A moving group whose translation stays put legitimately gets no new checkpoint.
 * The finding fires once the checkpoint has been owed for longer than the group's threshold
 * (resolveCheckpointStaleMs; tracked in `watch`, which the caller persists between cycles and
 * restarts) and the latest checkpoint is older than it too. Groups outside MM2's group filter are
 * not in `ft.groups` and are never flagged. While the offset syncs are unreadable
 * (`ft.syncsLoaded` false) nothing is judged and the flow's watch is kept as it was; so for a group
 * whose offsets are unknown this cycle (`unknown`).
 */
export function detectStaleCheckpoints(
  ft: FlowTranslation,
  watch: CheckpointWatch,
  now: number,
  thresholds: TranslationThresholds = defaultTranslationThresholds,
): { findings: Finding[]; watch: CheckpointWatch } {
  if (!ft.syncsLoaded) return { findings: [], watch: { ...watch } };
  const flowPrefix = `${ft.flow}|`;
  const next: CheckpointWatch = {};
  // Other flows' clocks are kept as they are (a watch this function wrote knows whether it has any).
  if (holdsOtherFlows(watch, ft.flow)) for (const key in watch) if (!key.startsWith(flowPrefix)) next[key] = watch[key]!;
  const findings: Finding[] = [];
  for (const g of ft.groups) {
    if (g.unknown !== null) {
      // Not judged: the group's clocks are kept as they were until its offsets are read again.
      const prefix = `${flowPrefix}${g.group}|`;
      for (const key in watch) if (key.startsWith(prefix)) next[key] = watch[key]!;
      continue;
    }
    // The rows' columns: a row is made only for a finding.
    const rows = readGroupRows(g);
    const thresholdMs = resolveCheckpointStaleMs(ft.checkpointTiming, rows.hasCheckpoint(), thresholds.checkpointStaleMs);
    if (thresholdMs === null) continue;
    const groupPrefix = `${flowPrefix}${g.group}|`;
    for (let i = 0; i < rows.length; i++) {
      if (!rows.isCheckpointOwed(i)) continue;
      const checkpoint = rows.checkpoint(i);
      const key = internPrefixedPartitionKey(groupPrefix, rows.topic(i), rows.partition(i));
      const previous = watch[key];
      // Still owed since the same checkpoint: the entry stays as it is (no new object, no new string).
      const entry = previous !== undefined && isSameCheckpoint(previous, checkpoint) ? previous : createWatchEntry(checkpoint, now);
      next[key] = entry;
      const checkpointOld = checkpoint === null || now - checkpoint.at > thresholdMs;
      if (now - entry.dueSince > thresholdMs && checkpointOld) {
        const p = rows.row(i);
        findings.push(staleFinding(ft, g, p, { expected: isCheckpointOwed(p)!, owedMs: now - entry.dueSince, thresholdMs }, now));
      }
    }
  }
  // A superset is safe: it only makes the next call look for other flows' entries.
  flowsOfWatch.set(next, new Set([...(flowsOfWatch.get(watch) ?? []), ft.flow]));
  return { findings, watch: next };
}

type WatchEntry = CheckpointWatch[string];

/** The flows a watch holds clocks of, for watches this module wrote (a stored one is read once). */
const flowsOfWatch = new WeakMap<CheckpointWatch, ReadonlySet<string>>();

/** The checkpoint an entry's identity names, parsed once per entry object. */
const entryCheckpoints = new WeakMap<WatchEntry, { upstream: bigint; downstream: bigint } | null>();

function holdsOtherFlows(watch: CheckpointWatch, flow: string): boolean {
  let flows = flowsOfWatch.get(watch);
  if (flows === undefined) flowsOfWatch.set(watch, (flows = listWatchFlows(watch)));
  return [...flows].some((f) => f !== flow);
}

/** Flow ids of a watch's keys (`<flow>|<group>|<topic>|<partition>`; a flow id holds no `|`). */
function listWatchFlows(watch: CheckpointWatch): Set<string> {
  const flows = new Set<string>();
  for (const key in watch) flows.add(key.slice(0, key.indexOf("|")));
  return flows;
}

/** A checkpoint's offsets (a row's, or its column's). */
type CheckpointOffsets = { upstream: bigint; downstream: bigint } | null;

function createWatchEntry(checkpoint: CheckpointOffsets, now: number): WatchEntry {
  const entry: WatchEntry = { checkpoint: checkpoint ? `${checkpoint.upstream}:${checkpoint.downstream}` : null, dueSince: now };
  entryCheckpoints.set(entry, checkpoint ? { upstream: checkpoint.upstream, downstream: checkpoint.downstream } : null);
  return entry;
}

/** Whether the entry's identity (`upstream:downstream`, or null) names this checkpoint. */
function isSameCheckpoint(entry: WatchEntry, checkpoint: CheckpointOffsets): boolean {
  let named = entryCheckpoints.get(entry);
  if (named === undefined) {
    const match = entry.checkpoint === null ? null : /^(-?\d+):(-?\d+)$/.exec(entry.checkpoint);
    named = match === null ? null : { upstream: BigInt(match[1]!), downstream: BigInt(match[2]!) };
    // An identity that is not two offsets as `${bigint}` writes them never equals a checkpoint's.
    if (entry.checkpoint !== null && (named === null || `${named.upstream}:${named.downstream}` !== entry.checkpoint)) return false;
    entryCheckpoints.set(entry, named);
  }
  if (named === null || checkpoint === null) return named === null && checkpoint === null;
  return named.upstream === checkpoint.upstream && named.downstream === checkpoint.downstream;
}

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
