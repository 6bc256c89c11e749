import { handleRoute, jsonResponse } from "@/lib/api/json";
import { readReadiness } from "@/lib/views/probes";

export const dynamic = "force-dynamic";

/**
 * GET /api/health/ready — readiness for orchestrators: 200 when the read model this process serves (its last cycle;
 * role web: the collectors' published model) is at most 3 poll intervals old, else 503 with the reason.
 */
export function GET() {
  return handleRoute(() => {
    const view = readReadiness(Date.now());
    return jsonResponse(view, view.status === "ready" ? 200 : 503);
  });
}
