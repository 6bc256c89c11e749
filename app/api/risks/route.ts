import { handleRoute, jsonResponse } from "@/lib/api/json";
import { getRuntime } from "@/lib/collector/singleton";
import { shapeRisksView } from "@/lib/views/risks";

export const dynamic = "force-dynamic";

/**
 * GET /api/risks — standing risks (posture: commits without leader epoch, unclean election enabled),
 * never alerts: {risks: [{key, type, severity, flow, cluster, topic, partition, group, summary,
 * evidence, firstSeen, lastSeen}], byCluster, byGroup}.
 */
export function GET() {
  return handleRoute(() => jsonResponse(shapeRisksView(getRuntime().alerts.risks())));
}
