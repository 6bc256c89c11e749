import { handleRoute } from "@/lib/api/json";
import { renderServedMetrics } from "@/lib/views/served-metrics";

export const dynamic = "force-dynamic";

const headers = { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" };

/**
 * GET /api/metrics — Prometheus text format: lag per flow and topic, and per partition where it lags or
 * has an open finding (lib/alerts/metric-series.ts), lost records, task and alert states, failover readiness, cycle time.
 */
export function GET() {
  return handleRoute(async () => new Response(await renderServedMetrics(), { headers }));
}
