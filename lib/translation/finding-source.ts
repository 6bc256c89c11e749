import type { Finding } from "@/lib/detect/types";
import type { Thresholds } from "@/lib/detect/thresholds";
import { type CheckpointWatch, detectStaleCheckpoints, detectTranslationErrors } from "./detectors";
import type { TranslationRecorder } from "./record-cycle";

/**
 * TRANSLATION_ERROR and CHECKPOINT_STALE findings for the alerting pipeline, from the latest
 * cycle's translations; keeps the checkpoint watch (which checkpoints MM2 owes since when)
 * between cycles.
 */
export function createTranslationFindingSource(recorder: TranslationRecorder): (now: number, thresholds: Thresholds) => Finding[] {
  let watch: CheckpointWatch = {};
  return (now, thresholds) => {
    const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
    const findings: Finding[] = [];
    for (const ft of recorder.latest().values()) {
      findings.push(...detectTranslationErrors(ft, now, limits));
      const stale = detectStaleCheckpoints(ft, watch, now, limits);
      watch = stale.watch;
      findings.push(...stale.findings);
    }
    return findings;
  };
}
