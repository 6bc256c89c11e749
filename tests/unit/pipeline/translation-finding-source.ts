import { defaultThresholds, type Thresholds } from "@/lib/config/thresholds";
import { createDetectorMemory, type Finding, runRules } from "@/lib/detect";
import { translationRule } from "@/lib/detect/translation-rule";
import { type ShardAssignment } from "@/lib/collector/shards";
import { createTranslationMemoryStore, type TranslationMemory } from "@/lib/pipeline/translation-memory";
import type { Store } from "@/lib/store";
import type { FlowTranslation } from "@/lib/translation";

/** The translation findings of one cycle at `now` (`untranslatedFlows`: flows whose translation failed). */
export type TranslationFindingSource = (
  translations: ReadonlyMap<string, FlowTranslation>,
  now: number,
  thresholds?: Thresholds,
  untranslatedFlows?: ReadonlySet<string>,
) => Promise<Finding[]>;

/**
 * The translation rule (lib/detect/translation-rule.ts) run by the engine cycle after cycle with its memory kept in
 * `store` as the pipeline keeps it (translation-memory.ts; lib/pipeline/rule-memory.ts): what the pipeline does for
 * TRANSLATION_ERROR and CHECKPOINT_STALE, without the other rules (whose findings these tests do not judge).
 */
export function createTranslationFindingSource(
  store: Pick<Store, "getValue" | "setValue">,
  scope: ShardAssignment | null = null,
): TranslationFindingSource {
  const stored = createTranslationMemoryStore(store, scope);
  let memory: TranslationMemory | null = null;
  return async (translations, now, thresholds = defaultThresholds, untranslatedFlows = new Set()) => {
    const last = await stored.follow(memory, now);
    const current = { cycle: 1, takenAt: now, durationMs: 0, clusters: [], connect: [], flows: [], malformedRecords: {} };
    const judged = runRules(
      {
        previous: null,
        current,
        history: { offsetSyncs: new Map() },
        now,
        thresholds,
        memory: { ...createDetectorMemory(), lastFindings: [...last.findings], checkpointWatch: last.watch },
        translations,
        untranslatedFlows,
      },
      [translationRule],
    );
    memory = { watch: judged.memory.checkpointWatch, findings: judged.memory.lastFindings };
    // As the pipeline (rule-memory.ts): a failed write is not the cycle's failure; the next cycle writes again.
    await stored.save(memory, now).catch(() => undefined);
    return judged.findings;
  };
}
