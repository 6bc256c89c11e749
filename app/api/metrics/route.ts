import { renderMetrics, updateReadinessMetrics } from "@/lib/alerts/metrics";
import { handleRoute } from "@/lib/api/json";
import { listFlowReadiness } from "@/lib/views/readiness-data";
import { readLatestModel } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/metrics — Prometheus text format: lag per flow and topic, and per partition where it lags or
 * has an open finding (lib/alerts/metric-series.ts), lost records, task and alert states, failover readiness, cycle time.
 */
export function GET() {
  return handleRoute(async () => {
    const model = readLatestModel();
    if (model !== null) updateReadinessMetrics(listFlowReadiness(model));
    return new Response(await renderMetrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
  });
}
