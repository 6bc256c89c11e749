/**
 * TRANSLATION_ERROR and CHECKPOINT_STALE as one rule over the cycle's translations (lib/translation), its memory
 * the checkpoint watch (which checkpoints MM2 owes since when), updated in place. The watch is judged first:
 * TRANSLATION_ERROR asks it whether a rewound group's checkpoint is still due (translation-detectors.ts).
 */
import type { FlowTranslation, GroupTranslation, PartitionTranslation } from "@/lib/translation";
import type { RuleCycle, StatefulRule } from "./rule";
import { detectTranslationErrors } from "./translation-detectors";
import { type Finding, FindingType } from "./types";

export const translationRule: StatefulRule<"checkpointWatch"> = {
  id: "translation",
  types: [FindingType.TRANSLATION_ERROR, FindingType.CHECKPOINT_STALE],
  unknown: createUnjudgedTest,
  section: "checkpointWatch",
  run(cycle, watch) {
    const { now, thresholds } = cycle;
    const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
    const findings: Finding[] = [];
    for (const ft of cycle.translations.values()) {
      const stale = watch.judge(ft, now, limits);
      const awaitingRewound = (g: GroupTranslation, p: PartitionTranslation) => watch.isAwaitingRewoundCheckpoint(ft, g, p, now, limits);
      findings.push(...detectTranslationErrors(ft, now, limits, awaitingRewound));
      findings.push(...stale);
    }
    return { findings, memory: watch };
  },
};

/**
 * Last cycle's translation findings this cycle did not judge, so they stay as they were instead of resolving on
 * missing data: the flow's translation failed, its offset syncs could not be read, or the group's offsets are unknown.
 */
function createUnjudgedTest(cycle: RuleCycle): (finding: Finding) => boolean {
  const unknownGroups = new Map<string, ReadonlySet<string>>();
  const groupsOf = (ft: FlowTranslation) => {
    let groups = unknownGroups.get(ft.flow);
    if (groups === undefined) {
      groups = new Set(ft.groups.filter((g) => g.unknown !== null).map((g) => g.group));
      unknownGroups.set(ft.flow, groups);
    }
    return groups;
  };
  return (f) => {
    if (f.flow === undefined) return false;
    const ft = cycle.translations.get(f.flow);
    if (ft === undefined) return cycle.untranslatedFlows.has(f.flow);
    return !ft.syncsLoaded || (f.group !== undefined && groupsOf(ft).has(f.group));
  };
}
