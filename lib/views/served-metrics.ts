import { renderMetrics, updateReadinessMetrics } from "@/lib/alerts/metrics";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { listServedReadiness } from "./readiness-data";
import { readLatestModel } from "./runtime-data";

/**
 * GET /api/metrics's text: this process's registry with each flow's readiness set from the latest model (unknown while
 * its data is stale: data-age.ts), or — on role all's server, whose collector runs in its own process — that
 * process's (it answers with this very function).
 */
export function renderServedMetrics(): Promise<string> {
  const { collectorMetrics } = getServingRuntime();
  if (collectorMetrics !== undefined) return collectorMetrics();
  const model = readLatestModel();
  // As the pages show it: unknown on stale data (a stuck collector's last verdict is not today's).
  if (model !== null) updateReadinessMetrics(listServedReadiness(model, Date.now()));
  return renderMetrics();
}
