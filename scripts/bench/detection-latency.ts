import { injectFailTask, injectPurge, injectTopicReset, prepareResetTopics } from "./fault-injections";
import type { InjectionResult, LatencyContext, ScenarioName } from "./measure-injection";
import { medianOrNull, pickQuantile } from "./stats";

export type { InjectionResult, LatencyContext } from "./measure-injection";

export interface LatencySummary {
  scenario: ScenarioName;
  /** Injections tried: detected + missed + notInjected. */
  injections: number;
  /** Detected by a cycle that started within 3 poll intervals of the fault. */
  detected: number;
  missed: number;
  /** Tried but the fault never ran (its setup failed; the injection's error says why): nothing to detect. */
  notInjected: number;
  /** Medians over every injected fault, a miss counting as slower than any detection: null when half or more missed. */
  medianApiMs: number | null;
  medianBannerMs: number | null;
  medianCycleStartMs: number | null;
  medianScenarioSeconds: number | null;
}

/**
 * Injects each fault `rounds` times, interleaved (fail-task+recover, purge, topic-reset per round)
 * so TASK_FAILED's one-minute resolve hysteresis passes while the others run. Every injection uses
 * its own partition or topic, so no alert is a duplicate of an earlier one; firing alerts are
 * acknowledged before each injection, so the banner shows only the new one.
 */
export async function measureDetectionLatency(ctx: LatencyContext, rounds: number): Promise<InjectionResult[]> {
  await prepareResetTopics(ctx.state, rounds);
  const results: InjectionResult[] = [];
  for (let i = 0; i < rounds; i++) {
    results.push(await injectFailTask(ctx, i));
    results.push(await injectPurge(ctx, i));
    results.push(await injectTopicReset(ctx, i));
    for (const r of results.slice(-3)) ctx.log(`  ${r.scenario} ${r.target}: api ${formatMs(r.apiMs)}, banner ${formatMs(r.bannerMs)}${r.error ? ` (${r.error})` : ""}`);
  }
  return results;
}

export function summarizeLatency(results: readonly InjectionResult[]): LatencySummary[] {
  return (["purge", "topic-reset", "fail-task"] as const).map((scenario) => {
    const tried = results.filter((r) => r.scenario === scenario);
    const runs = tried.filter((r) => r.injected);
    return {
      scenario,
      injections: tried.length,
      detected: runs.filter((r) => !r.missed).length,
      missed: runs.filter((r) => r.missed).length,
      notInjected: tried.length - runs.length,
      medianApiMs: medianCountingMisses(runs, (r) => r.apiMs),
      medianBannerMs: medianCountingMisses(runs, (r) => r.bannerMs),
      medianCycleStartMs: medianCountingMisses(runs, (r) => r.cycleStartMs),
      medianScenarioSeconds: medianOrNull(runs.map((r) => r.scenarioSeconds)),
    };
  });
}

/** The median with every miss (or unmeasured value) sorted last as +∞; null when the median falls on one. */
function medianCountingMisses(runs: readonly InjectionResult[], pick: (r: InjectionResult) => number | null): number | null {
  const sorted = runs.map((r) => (r.missed ? null : pick(r)) ?? Number.POSITIVE_INFINITY).sort((x, y) => x - y);
  const median = pickQuantile(sorted, 0.5);
  return Number.isFinite(median) ? median : null;
}

const formatMs = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`);
