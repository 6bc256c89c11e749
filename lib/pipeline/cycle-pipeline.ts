import type { AlertService } from "@/lib/alerts/alert-service";
import { readMetricsOptions } from "@/lib/alerts/metric-series";
import { updateMetrics } from "@/lib/alerts/metrics";
import type { ShardAssignment } from "@/lib/collector/shards";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { GapwatchConfig } from "@/lib/config";
import { runRules } from "@/lib/detect/engine";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import type { FlowTranslation } from "@/lib/translation";
import { ContentAuditor, type RecordSampleReader } from "./content-audit";
import { FlowTranslator, listTranslationSamples } from "./flow-translator";
import { ProgressWindow } from "./progress-window";
import type { ReadModel } from "./read-model";
import { RuleMemoryKeeper } from "./rule-memory";

const log = getLogger("pipeline");
/** Prune history once an hour at a 60 s poll (every 60th cycle). */
const pruneEveryCycles = 60;

/**
 * One cycle end to end, after the collector's snapshot: translation of every flow → every rule with its memory
 * (lib/detect's engine; the memory kept in the store by rule-memory.ts) → alert lifecycle → store → metrics → the
 * read model. The collector only collects; this is the one place that wires the layers above it together.
 */
export class CyclePipeline {
  private readonly translator = new FlowTranslator();
  private readonly progress: ProgressWindow;
  private readonly memory: RuleMemoryKeeper;
  private readonly metricsOptions: ReturnType<typeof readMetricsOptions>;
  private latestModel: ReadModel | null = null;
  private readonly auditor: ContentAuditor | null;

  /**
   * `samples`: reads records for the content audit (the collector); without it, or with audit.enabled false, no audit.
   * `scope`: the shards a collector holds (scaleOut), whose rule memory it keeps.
   */
  constructor(
    private readonly config: GapwatchConfig,
    private readonly store: Store,
    private readonly alerts: AlertService,
    samples: RecordSampleReader | null = null,
    scope: ShardAssignment | null = null,
  ) {
    this.auditor = samples !== null && config.audit.enabled ? new ContentAuditor(config.audit, config.pollIntervalSeconds, samples, store) : null;
    this.memory = new RuleMemoryKeeper(store, scope);
    this.metricsOptions = readMetricsOptions(config);
    this.progress = new ProgressWindow(config.thresholds.catchUpWindowMs);
  }

  /** The read model of the latest cycle, or null before the first one. */
  latest(): ReadModel | null {
    return this.latestModel;
  }

  /** Runs the cycle's steps; a failing step is logged and the others still run (a store error never hides alerts). */
  async processCycle(current: Snapshot, previous: Snapshot | null, history: CollectorHistory): Promise<ReadModel> {
    const now = current.takenAt;
    const { translations, errors } = this.translate(current, history);
    const untranslatedFlows = new Set(errors.keys());
    const auditFindings = (await this.auditor?.findings()) ?? [];
    const memory = await this.memory.load(now);
    const { thresholds } = this.config;
    const input = { previous, current, history, now, thresholds, memory, translations, untranslatedFlows, auditFindings };
    const judged = runRules(input);
    const { alerts, risks } = await this.alerts.processCycle({ findings: judged.findings, now });
    await this.memory.save(judged.memory, now);
    await this.record(current, translations);
    updateMetrics(current, alerts, risks, this.metricsOptions);
    const progress = this.progress.record(current);
    this.latestModel = Object.freeze({ snapshot: current, history, translations, translationErrors: errors, alerts, risks, progress, audit: this.auditor?.views(now) ?? new Map(), builtAt: Date.now() });
    return this.latestModel;
  }

  /**
   * processCycle, then the content audit of the same snapshot, which reads both clusters (so it runs here, between
   * the collector's cycles). It sees this cycle's alerts (the focus offsets, and what explains a mismatch); its
   * AUDIT_MISMATCH findings join the next cycle's alerts, its counters this cycle's read model.
   */
  async runCycle(current: Snapshot, previous: Snapshot | null, history: CollectorHistory): Promise<ReadModel> {
    const model = await this.processCycle(current, previous, history);
    if (this.auditor === null) return model;
    try {
      await this.auditor.auditCycle(current, history, model.alerts);
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, "the content audit failed this cycle");
    }
    this.latestModel = Object.freeze({ ...model, audit: this.auditor.views(current.takenAt) });
    return this.latestModel;
  }

  private translate(snapshot: Snapshot, history: CollectorHistory) {
    try {
      const errors = new Map<string, string>();
      const translations = this.translator.translateCycle(snapshot, history, errors);
      for (const [flow, why] of errors) log.error({ flow, err: why }, "translating a flow failed; its groups are unknown this cycle");
      return { translations, errors };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log.error({ err: why }, "translating the cycle's flows failed; their groups are unknown this cycle");
      return { translations: new Map<string, FlowTranslation>(), errors: new Map(snapshot.flows.map((f) => [f.id, why])) };
    }
  }

  /** Writes the cycle's samples (partition offsets, translations) and prunes old history now and then. */
  private async record(snapshot: Snapshot, translations: ReadonlyMap<string, FlowTranslation>): Promise<void> {
    try {
      await this.store.recordFlowSamples(snapshot.flows, snapshot.takenAt);
      for (const [flow, translation] of translations) await this.store.recordTranslationSamples(flow, listTranslationSamples(translation), snapshot.takenAt);
      if (snapshot.cycle % pruneEveryCycles === 1) await this.store.prune(snapshot.takenAt);
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the cycle to the store failed");
    }
  }
}
