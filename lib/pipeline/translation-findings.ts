import { z } from "zod";
import type { Finding } from "@/lib/detect/types";
import type { Thresholds } from "@/lib/config/thresholds";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { type CheckpointWatch, detectStaleCheckpoints, detectTranslationErrors, type FlowTranslation } from "@/lib/translation";

const log = getLogger("translation");

/** Store key of the checkpoint watch (the alert service keeps its detector memory under its own). */
const checkpointWatchKey = "checkpoint-watch";

const storedWatchSchema = z.object({
  version: z.literal(1),
  watch: z.record(z.string(), z.object({ checkpoint: z.string().nullable(), dueSince: z.number().int().nonnegative() })),
});

/**
 * TRANSLATION_ERROR and CHECKPOINT_STALE findings for the alerting pipeline, from the latest
 * cycle's translations. The checkpoint watch (which checkpoints MM2 owes since when) is kept in the
 * store between cycles and restarts, so a restart of Gapwatch neither resolves a CHECKPOINT_STALE
 * alert nor starts its clock again.
 */
export function createTranslationFindingSource(
  store: Pick<Store, "getValue" | "setValue">,
): (translations: ReadonlyMap<string, FlowTranslation>, now: number, thresholds: Thresholds) => Promise<Finding[]> {
  // Read from the store by the first cycle (a failed read fails that cycle and is tried again by the next).
  let watch: CheckpointWatch | null = null;
  let last: Finding[] = [];
  return async (translations, now, thresholds) => {
    watch ??= await loadWatch(store);
    const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
    const findings: Finding[] = [];
    for (const ft of translations.values()) {
      const produced = detectTranslationErrors(ft, now, limits);
      const stale = detectStaleCheckpoints(ft, watch, now, limits);
      watch = stale.watch;
      produced.push(...stale.findings);
      findings.push(...produced, ...carryUnjudgedFindings(ft, last, produced));
    }
    // The watch stays in memory: a failed write is logged and the next cycle writes it again (a store error never hides alerts).
    await store.setValue(checkpointWatchKey, JSON.stringify({ version: 1, watch })).catch((err: unknown) =>
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the checkpoint watch to the store failed"),
    );
    last = findings;
    return findings;
  };
}

/**
 * Last cycle's findings of this flow that were not judged now — the offset syncs could not be read,
 * or the group's offsets are unknown — so they stay as they were instead of resolving on missing data.
 */
function carryUnjudgedFindings(ft: FlowTranslation, last: readonly Finding[], produced: readonly Finding[]): Finding[] {
  const keys = new Set(produced.map((f) => f.key));
  const unknownGroups = new Set(ft.groups.filter((g) => g.unknown !== null).map((g) => g.group));
  const unjudged = (f: Finding) => !ft.syncsLoaded || (f.group !== undefined && unknownGroups.has(f.group));
  return last.filter((f) => f.flow === ft.flow && !keys.has(f.key) && unjudged(f));
}

/** The stored watch; a missing one is empty, an unreadable one is logged and started afresh. */
async function loadWatch(store: Pick<Store, "getValue">): Promise<CheckpointWatch> {
  const raw = await store.getValue(checkpointWatchKey);
  if (raw === null) return {};
  try {
    const parsed = storedWatchSchema.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data.watch;
    log.warn({ err: parsed.error.message }, "stored checkpoint watch unreadable; starting afresh");
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored checkpoint watch is not JSON; starting afresh");
  }
  return {};
}
