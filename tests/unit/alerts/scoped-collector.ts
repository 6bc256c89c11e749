import { type AlertCycleResult, createAlertService } from "@/lib/alerts/alert-service";
import type { ShardAssignment } from "@/lib/collector/shards";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { GapwatchConfig } from "@/lib/config";
import { runRules } from "@/lib/detect";
import { RuleMemoryKeeper } from "@/lib/pipeline/rule-memory";
import type { Store } from "@/lib/store";
import type { FlowTranslation } from "@/lib/translation";

/** One cycle for a collector: the snapshots, and the flows' translations when the test judges them. */
export interface CollectorCycle {
  current: Snapshot;
  previous: Snapshot | null;
  history: CollectorHistory;
  translations?: ReadonlyMap<string, FlowTranslation>;
}

/**
 * What a collector's pipeline does with a cycle's rules and alerts (lib/pipeline/cycle-pipeline.ts), with the alert
 * service's result (its transitions too): every rule's memory read from the store for the held shards, the engine,
 * the alert service, the memory written.
 */
export function createScopedCollector(store: Store, config: GapwatchConfig, scope: ShardAssignment | null) {
  const memory = new RuleMemoryKeeper(store, scope);
  const alerts = createAlertService(store, config, scope);
  return {
    async processCycle({ current, previous, history, translations }: CollectorCycle): Promise<AlertCycleResult> {
      const now = current.takenAt;
      const { thresholds } = config;
      const judged = runRules({ previous, current, history, now, thresholds, memory: await memory.load(now), translations });
      const result = await alerts.processCycle({ findings: judged.findings, now });
      await memory.save(judged.memory, now);
      return result;
    },
    list: () => alerts.list(),
    stop: () => alerts.stop(),
  };
}
