import { defaultThresholds, type Thresholds } from "@/lib/config/thresholds";
import { type Finding, runRules } from "@/lib/detect";
import { translationRule } from "@/lib/detect/translation-rule";
import { type ShardAssignment } from "@/lib/collector/shards";
import { RuleMemoryKeeper } from "@/lib/pipeline/rule-memory";
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
 * `store` as the pipeline keeps it (lib/pipeline/rule-memory.ts: memory entries): what the pipeline does for
 * TRANSLATION_ERROR and CHECKPOINT_STALE, without the other rules (whose findings these tests do not judge).
 */
export function createTranslationFindingSource(store: Store, scope: ShardAssignment | null = null): TranslationFindingSource {
  const keeper = new RuleMemoryKeeper(store, scope);
  return async (translations, now, thresholds = defaultThresholds, untranslatedFlows = new Set()) => {
    const memory = await keeper.load(now);
    const current = { cycle: 1, takenAt: now, durationMs: 0, clusters: [], connect: [], flows: [], malformedRecords: {} };
    const judged = runRules(
      { previous: null, current, history: { offsetSyncs: new Map() }, now, thresholds, memory, translations, untranslatedFlows },
      [translationRule],
    );
    // As the pipeline (rule-memory.ts): a failed write is logged, not the cycle's failure; the next cycle writes again.
    await keeper.save(judged.memory, now);
    return judged.findings;
  };
}
