import type { Page } from "@playwright/test";
import type { AlertRecord } from "@/lib/alerts/types";
import type { SandboxState } from "@/lib/sandbox/state";
import { type DashboardClient, pollUntil } from "./dashboard-client";

export type ScenarioName = "purge" | "topic-reset" | "fail-task";

export interface InjectionResult {
  scenario: ScenarioName;
  target: string;
  /** How long the scenario itself took (inject, and for purge: resume). */
  scenarioSeconds: number;
  /** Scenario returned → first GET /api/alerts that lists the alert firing. */
  apiMs: number | null;
  /** Scenario returned → the alert's line visible in the banner of an open page (auto-refresh 5 s). */
  bannerMs: number | null;
  /**
   * Start of the cycle that detected it − scenario returned; negative: a cycle that started before
   * the scenario returned already saw the fault. The alert's firstSeen for a new alert; for one that
   * refired (fail-task: the same task every round) its lastSeen when first listed.
   */
  cycleStartMs: number | null;
  error: string | null;
}

export interface LatencyContext {
  state: SandboxState;
  flowId: string;
  dashboard: DashboardClient;
  /** A page kept open on the overview with `?refresh=5`, showing the banner. */
  page: Page;
  log: (line: string) => void;
}

/** One fault injection: what to run and how to recognise its alert. */
export interface InjectionSpec {
  scenario: ScenarioName;
  target: string;
  type: string;
  inject: () => Promise<unknown>;
  matches: (alert: AlertRecord) => boolean;
  /** Text of the banner line that belongs to this injection (null: any line of the type). */
  bannerText: string | null;
}

const detectTimeoutMs = 120_000;

/**
 * Acknowledges what fires (so the banner shows only the new alert), runs the fault, then waits in
 * parallel for the alert in GET /api/alerts (polled every 200 ms) and for its line in the banner.
 */
export async function measureInjection(ctx: LatencyContext, spec: InjectionSpec): Promise<InjectionResult> {
  const result: InjectionResult = { scenario: spec.scenario, target: spec.target, scenarioSeconds: 0, apiMs: null, bannerMs: null, cycleStartMs: null, error: null };
  try {
    await acknowledgeFiring(ctx.dashboard);
    const started = Date.now();
    await spec.inject();
    const done = Date.now();
    result.scenarioSeconds = (done - started) / 1000;
    const banner = ctx.page
      .locator(`[data-testid="alert-banner"] [data-testid="banner-${spec.type}"]`, spec.bannerText ? { hasText: spec.bannerText } : {})
      .first()
      .waitFor({ state: "visible", timeout: detectTimeoutMs })
      .then(() => Date.now() - done);
    const api = pollUntil(async () => (await ctx.dashboard.listFiringAlerts(spec.type)).find(spec.matches) ?? null, `a firing ${spec.type} alert for ${spec.target}`, detectTimeoutMs, 200).then(
      (alert) => ({ ms: Date.now() - done, cycleStart: (alert.firstSeen >= started ? alert.firstSeen : alert.lastSeen) - done }),
    );
    const [apiOutcome, bannerOutcome] = await Promise.allSettled([api, banner]);
    if (apiOutcome.status === "fulfilled") {
      result.apiMs = apiOutcome.value.ms;
      result.cycleStartMs = apiOutcome.value.cycleStart;
    }
    if (bannerOutcome.status === "fulfilled") result.bannerMs = bannerOutcome.value;
    const errors = [apiOutcome, bannerOutcome].filter((o) => o.status === "rejected").map((o) => String(o.reason instanceof Error ? o.reason.message : o.reason));
    result.error = errors.length ? errors.join("; ") : null;
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  return result;
}

export function failedInjection(scenario: ScenarioName, target: string, error: string): InjectionResult {
  return { scenario, target, scenarioSeconds: 0, apiMs: null, bannerMs: null, cycleStartMs: null, error };
}

/** Leaves the banner empty: acknowledged alerts stay firing but leave it until they fire anew. */
async function acknowledgeFiring(dashboard: DashboardClient): Promise<void> {
  for (const a of await dashboard.listFiringAlerts()) if (a.acknowledged === null) await dashboard.acknowledge(a.id);
}
