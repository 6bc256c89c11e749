import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAlertService } from "@/lib/alerts/alert-service";
import type { GapwatchConfig } from "@/lib/config";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { decodeReadModel, encodeReadModel } from "@/lib/pipeline/published-read-models";
import type { RecordedCycle } from "@/lib/pipeline/cycle-recording";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createSqliteStore } from "@/lib/store";
import { digestAnswers, digestOutputs } from "./digest";

/** One replayed cycle: its number, the digests of what the pipeline produced, and the alerts it held. */
export interface ReplayedCycle {
  cycle: number;
  digest: string;
  /** The digest without the catch-up window (ProgressWindow lives in memory: a restart begins it anew). */
  digestWithoutProgress: string;
  /** The digest of what the API answers from the cycle's read model (pages' default lists, readiness, groups). */
  answers: string;
  /**
   * The same answers from the model as published and decoded (what every page serves: role web, and role all's server
   * process, read the published model).
   */
  publishedAnswers: string;
  alerts: number;
  firing: string[];
}

export interface ReplayOptions {
  config: GapwatchConfig;
  /** Restart the pipeline before these cycles (a new pipeline and alert service on the same store, no previous). */
  restartBefore?: ReadonlySet<number>;
  /** Called with each cycle's read model (a test reads more of it than the digest). */
  onModel?: (model: ReadModel) => void;
}

/**
 * Runs the cycles through today's pipeline (CyclePipeline.processCycle: translation, every detector, the alert
 * service, store writes, metrics) on a fresh SQLite store in a temporary directory, as the collector would have
 * handed them over, and returns each cycle's digests, its answers' also from the model as published and decoded. The
 * content audit does not run: it reads live clusters.
 */
export async function replayPipeline(cycles: AsyncIterable<RecordedCycle> | Iterable<RecordedCycle>, options: ReplayOptions): Promise<ReplayedCycle[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-replay-"));
  const file = path.join(dir, "replay.db");
  let store = createSqliteStore(file);
  let alerts = createAlertService(store, options.config);
  let pipeline = new CyclePipeline(options.config, store, alerts);
  const replayed: ReplayedCycle[] = [];
  try {
    for await (const { current, previous, history } of cycles) {
      const restart = options.restartBefore?.has(current.cycle) === true;
      if (restart) {
        alerts.stop();
        await store.close();
        store = createSqliteStore(file);
        alerts = createAlertService(store, options.config);
        pipeline = new CyclePipeline(options.config, store, alerts);
      }
      const model = await pipeline.processCycle(current, restart ? null : previous, history);
      options.onModel?.(model);
      const published = await decodeReadModel(encodeReadModel(model));
      const firing = model.alerts.filter((a) => a.state === "firing").map((a) => a.key).sort();
      replayed.push({
        cycle: current.cycle,
        digest: digestOutputs(model),
        digestWithoutProgress: digestOutputs(model, ["progress"]),
        answers: digestAnswers(model, options.config),
        publishedAnswers: digestAnswers(published, options.config),
        alerts: model.alerts.length,
        firing,
      });
    }
  } finally {
    alerts.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return replayed;
}
