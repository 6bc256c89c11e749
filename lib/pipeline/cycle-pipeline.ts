import type { AlertService } from "@/lib/alerts/alert-service";
import { readMetricsOptions } from "@/lib/alerts/metric-series";
import { updateMetrics } from "@/lib/alerts/metrics";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { GapwatchConfig } from "@/lib/config";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import type { FlowTranslation } from "@/lib/translation";
import { FlowTranslator, listTranslationSamples } from "./flow-translator";
import type { ReadModel } from "./read-model";
import { createTranslationFindingSource } from "./translation-findings";

const log = getLogger("pipeline");
/** Prune history once an hour at a 60 s poll (every 60th cycle). */
const pruneEveryCycles = 60;

/**
 * One cycle end to end, after the collector's snapshot: translation of every flow → every detector with its
 * memory (the alert service's and the translation findings') → alert lifecycle → store → metrics → the read
 * model. The collector only collects; this is the one place that wires the layers above it together.
 */
export class CyclePipeline {
  private readonly translator = new FlowTranslator();
  private readonly translationFindings: ReturnType<typeof createTranslationFindingSource>;
  private readonly metricsOptions: ReturnType<typeof readMetricsOptions>;
  private latestModel: ReadModel | null = null;

  constructor(
    private readonly config: GapwatchConfig,
    private readonly store: Store,
    private readonly alerts: AlertService,
  ) {
    this.translationFindings = createTranslationFindingSource(store);
    this.metricsOptions = readMetricsOptions(config);
  }

  /** The read model of the latest cycle, or null before the first one. */
  latest(): ReadModel | null {
    return this.latestModel;
  }

  /** Runs the cycle's steps; a failing step is logged and the others still run (a store error never hides alerts). */
  processCycle(current: Snapshot, previous: Snapshot | null, history: CollectorHistory): ReadModel {
    const now = current.takenAt;
    const { translations, errors } = this.translate(current, history);
    const findings = this.translationFindings(translations, now, this.config.thresholds);
    const { alerts, risks } = this.alerts.processCycle({ current, previous, history, extraFindings: findings });
    this.record(current, translations);
    updateMetrics(current, alerts, risks, this.metricsOptions);
    this.latestModel = Object.freeze({ snapshot: current, history, translations, translationErrors: errors, alerts, risks, builtAt: Date.now() });
    return this.latestModel;
  }

  private translate(snapshot: Snapshot, history: CollectorHistory) {
    try {
      return { translations: this.translator.translateCycle(snapshot, history), errors: new Map<string, string>() };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log.error({ err: why }, "translating the cycle's flows failed; their groups are unknown this cycle");
      return { translations: new Map<string, FlowTranslation>(), errors: new Map(snapshot.flows.map((f) => [f.id, why])) };
    }
  }

  /** Writes the cycle's samples (partition offsets, translations) and prunes old history now and then. */
  private record(snapshot: Snapshot, translations: ReadonlyMap<string, FlowTranslation>): void {
    try {
      this.store.recordFlowSamples(snapshot.flows, snapshot.takenAt);
      for (const [flow, translation] of translations) this.store.recordTranslationSamples(flow, listTranslationSamples(translation), snapshot.takenAt);
      if (snapshot.cycle % pruneEveryCycles === 1) this.store.prune(snapshot.takenAt);
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the cycle to the store failed");
    }
  }
}
