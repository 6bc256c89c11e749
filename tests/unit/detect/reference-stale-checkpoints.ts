/**
 * CHECKPOINT_STALE as it was judged before the watch was kept in place between cycles (lib/detect/checkpoint-watch.ts
 * CheckpointWatchState): over a whole watch object, a new watch per call. Used only by the differential tests
 * (checkpoint-watch.test.ts, translation-findings-cycles.test.ts), which require the same findings and entries from
 * both over many cycles; tests of CHECKPOINT_STALE's behaviour assert CheckpointWatchState itself, never this.
 */
import { internPrefixedPartitionKey } from "@/lib/collector/partition-keys";
import {
  type CheckpointWatch, defaultTranslationThresholds, isCheckpointOwed, resolveCheckpointStaleMs, staleFinding,
  type TranslationThresholds,
} from "@/lib/detect/translation-detectors";
import type { Finding } from "@/lib/detect/types";
import { type FlowTranslation, readGroupRows } from "@/lib/translation";

/**
 * CHECKPOINT_STALE (the rule: CheckpointWatchState.judge) over `ft` at `now`, from `watch`: its findings and the next
 * watch, a new object holding every flow's entries (other flows' kept as they are).
 */
export function detectReferenceStaleCheckpoints(
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
