import { handleRoute, jsonResponse } from "@/lib/api/json";
import { listClusterViews } from "@/lib/views/clusters";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/** GET /api/clusters — clusters with reachability, data age, topics with partition counts and offsets. */
export function GET() {
  return handleRoute(() => jsonResponse({ clusters: listClusterViews(requireSnapshot(), Date.now()) }));
}
