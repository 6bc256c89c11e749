import { renderMetrics } from "@/lib/alerts/metrics";
import { handleRoute } from "@/lib/api/json";
import { getRuntime } from "@/lib/collector/singleton";

export const dynamic = "force-dynamic";

/** GET /api/metrics — Prometheus text format: lag per partition, lost records, task and alert states, cycle time. */
export function GET() {
  return handleRoute(async () => {
    getRuntime();
    return new Response(await renderMetrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
  });
}
