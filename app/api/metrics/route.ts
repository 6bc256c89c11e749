import { renderMetrics, updateReadinessMetrics } from "@/lib/alerts/metrics";
import { handleRoute } from "@/lib/api/json";
import { getRuntime } from "@/lib/collector/singleton";
import { listFlowReadiness } from "@/lib/views/readiness-data";

export const dynamic = "force-dynamic";

/** GET /api/metrics — Prometheus text format: lag per partition, lost records, task and alert states, failover readiness, cycle time. */
export function GET() {
  return handleRoute(async () => {
    const snapshot = getRuntime().collector.latest();
    if (snapshot !== null) updateReadinessMetrics(listFlowReadiness(snapshot, Date.now()));
    return new Response(await renderMetrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
  });
}
