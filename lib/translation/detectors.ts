/**
 * Pure detectors over a FlowTranslation: TRANSLATION_ERROR and CHECKPOINT_STALE. No I/O, no clock.
 */
import { defaultThresholds } from "@/lib/detect/thresholds";
import { type Evidence, type Finding, FindingType, type SeverityName } from "@/lib/detect/types";
import { isSkipping } from "./reread";
import type { FlowTranslation, GroupTranslation, PartitionTranslation } from "./types";

/** Thresholds of both detectors. */
export interface TranslationThresholds {
  /** TRANSLATION_ERROR (warning) when a group's failover replay exceeds this many records. */
  replayRecords: number;
  /** CHECKPOINT_STALE when a due checkpoint has not come for longer than this (ms). */
  checkpointStaleMs: number;
}

/**
 * Defaults from lib/detect's thresholds: 10,000 records (a caught-up group already re-reads up to
 * offset.lag.max = 100 records per partition, MM2's normal sync spacing); 5 × MM2's default
 * emit.checkpoints.interval.seconds (60 s).
 */
export const defaultTranslationThresholds: TranslationThresholds = {
  replayRecords: defaultThresholds.translationReplayRecords,
  checkpointStaleMs: defaultThresholds.checkpointStaleMs,
};

/**
 * TRANSLATION_ERROR, one finding per group at most:
 * | condition                                                                  | severity |
 * | any partition where MM2's translation or latest checkpoint skips records   | critical |
 * | records replayed if we fail over now (failoverReplayRecords) > threshold   | warning  |
 * Brackets count with their conservative bound (reread.ts).
 */
export function detectTranslationErrors(ft: FlowTranslation, now: number, thresholds: TranslationThresholds = defaultTranslationThresholds): Finding[] {
  return ft.groups.flatMap((g) => {
    const skipping = g.partitions.filter(isSkipping);
    const replay = g.totals.failoverReplayRecords;
    if (skipping.length === 0 && replay <= BigInt(thresholds.replayRecords)) return [];
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
    return [{ key: `TRANSLATION_ERROR|${ft.flow}|${g.group}`, type: FindingType.TRANSLATION_ERROR, severity, flow: ft.flow, cluster: ft.source, group: g.group, summary, evidence, observedAt: now }];
  });
}

/** Per `flow|group|topic|partition`: since when MM2 owes a newer checkpoint than the one it has. */
export type CheckpointWatch = Record<string, { checkpoint: string | null; dueSince: number }>;

/**
 * CHECKPOINT_STALE, one finding per group/partition (warning). MM2 owes a checkpoint when its
 * translation is ≥ 0 and (a) there is no checkpoint yet, or (b) the committed offset moved away
 * from the checkpoint's upstream offset AND MirrorCheckpointTask would emit it
 * (checkpointIsMoreRecent: committed < checkpoint upstream [rewind], or translation > checkpoint
 * downstream). A moving group whose translation stays put legitimately gets no new checkpoint.
 * The finding fires once the checkpoint has been owed for longer than the threshold (tracked in
 * `watch`, which the caller keeps between cycles) and the latest checkpoint is older than it too.
 */
export function detectStaleCheckpoints(
  ft: FlowTranslation,
  watch: CheckpointWatch,
  now: number,
  thresholds: TranslationThresholds = defaultTranslationThresholds,
): { findings: Finding[]; watch: CheckpointWatch } {
  const next: CheckpointWatch = Object.fromEntries(Object.entries(watch).filter(([key]) => !key.startsWith(`${ft.flow}|`)));
  const findings: Finding[] = [];
  for (const g of ft.groups) {
    for (const p of g.partitions) {
      const expected = isCheckpointOwed(p);
      if (expected === null) continue;
      const key = `${ft.flow}|${g.group}|${p.topic}|${p.partition}`;
      const identity = p.checkpoint ? `${p.checkpoint.upstream}:${p.checkpoint.downstream}` : null;
      const previous = watch[key];
      const dueSince = previous && previous.checkpoint === identity ? previous.dueSince : now;
      next[key] = { checkpoint: identity, dueSince };
      const checkpointOld = p.checkpoint === null || now - p.checkpoint.at > thresholds.checkpointStaleMs;
      if (now - dueSince > thresholds.checkpointStaleMs && checkpointOld) findings.push(staleFinding(ft, g, p, expected, now - dueSince, now));
    }
  }
  return { findings, watch: next };
}

/** The downstream offset MM2 owes as a checkpoint, or null when it owes none. */
function isCheckpointOwed(p: PartitionTranslation): bigint | null {
  if (p.translation.kind !== "translated" || p.translation.downstream < 0n) return null;
  const c = p.checkpoint;
  if (c === null) return p.translation.downstream;
  if (p.committed === c.upstream) return null;
  return p.committed < c.upstream || p.translation.downstream > c.downstream ? p.translation.downstream : null;
}

function staleFinding(ft: FlowTranslation, g: GroupTranslation, p: PartitionTranslation, expected: bigint, owedMs: number, now: number): Finding {
  const c = p.checkpoint;
  const minutes = Math.round(owedMs / 60_000);
  const summary = c
    ? `MM2 has not checkpointed ${g.group} on ${p.topic}/${p.partition} for ${minutes} min: committed ${p.committed}, latest checkpoint ${c.upstream}→${c.downstream}, MM2 should emit →${expected}`
    : `MM2 has never checkpointed ${g.group} on ${p.topic}/${p.partition} (committed ${p.committed}, translatable to ${expected}) for ${minutes} min`;
  return {
    key: `CHECKPOINT_STALE|${ft.flow}|${g.group}|${p.topic}|${p.partition}`,
    type: FindingType.CHECKPOINT_STALE,
    severity: "warning",
    flow: ft.flow,
    cluster: ft.target,
    topic: p.topic,
    partition: p.partition,
    group: g.group,
    summary,
    evidence: {
      committed: p.committed.toString(),
      checkpointUpstream: c ? c.upstream.toString() : null,
      checkpointDownstream: c ? c.downstream.toString() : null,
      checkpointAgeMs: c ? c.ageMs : null,
      expectedDownstream: expected.toString(),
      owedForMs: owedMs,
    },
    observedAt: now,
  };
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
