import { handleRoute, jsonResponse } from "@/lib/api/json";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { parsePageRequest } from "@/lib/views/pagination";
import { pageRisksView, riskList } from "@/lib/views/risks";

export const dynamic = "force-dynamic";

/**
 * GET /api/risks?q=&limit=&cursor= — standing risks (posture: commits without leader epoch, unclean election
 * enabled), never alerts: {risks: [{key, type, severity, flow, cluster, topic, partition, group, summary,
 * evidence, firstSeen, lastSeen}] (one page, warnings first), byCluster and byGroup (over every risk), page}.
 */
export function GET(request: Request) {
  return handleRoute(() => jsonResponse(pageRisksView(getServingRuntime().alerts.risks(), parsePageRequest(new URL(request.url).searchParams, riskList))));
}
