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
  /** When the fault happened, from the scenario's own report (DeleteRecords returned, topic deleted, config failing). */
  faultAt: number | null;
  /** Fault → first GET /api/alerts that lists the alert firing (polled from the scenario's return on). */
  apiMs: number | null;
  /** Fault → the alert's line visible in the banner of an open page (auto-refresh 5 s). */
  bannerMs: number | null;
  /**
   * Start of the cycle that detected it − the fault. The alert's firstSeen for a new alert; for one that refired
   * (fail-task: the same task every round) its lastSeen when first listed.
   */
  cycleStartMs: number | null;
  /**
   * Whether the fault was injected: false when the run failed before it (its throwaway topic never replicated, the
   * previous round's alert never resolved, the scenario threw): no fault happened, so there is nothing to detect.
   * Reported apart (`error` says why), never dropped and never counted as detected.
   */
  injected: boolean;
  /** Injected and not detected by a cycle that started within 3 poll intervals of the fault (or never): counted, never dropped. */
  missed: boolean;
  error: string | null;
}

export interface LatencyContext {
  state: SandboxState;
  /** The dashboard's poll interval: an injection not detected within 3 of them is a miss. */
  pollIntervalMs: number;
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
  /** Runs the fault; its report's `faultAt` starts the clock (else the scenario's return does). */
  inject: () => Promise<{ faultAt?: number }>;
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
  const result = failedInjection(spec.scenario, spec.target, null);
  try {
    await acknowledgeFiring(ctx.dashboard);
    const started = Date.now();
    const report = await spec.inject();
    const returned = Date.now();
    // Injected: a miss until its alert is seen in time.
    result.injected = true;
    result.missed = true;
    const done = report.faultAt ?? returned;
    result.faultAt = done;
    result.scenarioSeconds = (returned - started) / 1000;
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
    result.missed = result.cycleStartMs === null || result.cycleStartMs > 3 * ctx.pollIntervalMs;
    const errors = [apiOutcome, bannerOutcome].filter((o) => o.status === "rejected").map((o) => String(o.reason instanceof Error ? o.reason.message : o.reason));
    result.error = errors.length ? errors.join("; ") : null;
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  return result;
}

/**
 * An injection before its fault ran: not injected (`error` says why). measureInjection marks it injected once the
 * scenario returned, and a miss until its alert is seen in time.
 */
export function failedInjection(scenario: ScenarioName, target: string, error: string | null): InjectionResult {
  return { scenario, target, scenarioSeconds: 0, faultAt: null, apiMs: null, bannerMs: null, cycleStartMs: null, injected: false, missed: false, error };
}

/** Leaves the banner empty: acknowledged alerts stay firing but leave it until they fire anew. */
async function acknowledgeFiring(dashboard: DashboardClient): Promise<void> {
  for (const a of await dashboard.listFiringAlerts()) if (a.acknowledged === null) await dashboard.acknowledge(a.id);
}
