import { handleRoute, jsonResponse } from "@/lib/api/json";
import { connectorList, pageConnectClusters } from "@/lib/views/connect";
import { parsePageRequest } from "@/lib/views/pagination";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/connect?q=&limit=&cursor= — Connect clusters, each with this page's connectors (by cluster and name) and
 * their tasks with states and root causes; credentials in configs redacted.
 */
export function GET(request: Request) {
  return handleRoute(() => {
    const pageRequest = parsePageRequest(new URL(request.url).searchParams, connectorList);
    return jsonResponse(pageConnectClusters(requireSnapshot(), Date.now(), pageRequest));
  });
}
