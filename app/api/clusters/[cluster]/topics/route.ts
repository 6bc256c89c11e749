import { handleRoute, jsonResponse } from "@/lib/api/json";
import { clusterTopicList, pageClusterTopics } from "@/lib/views/clusters";
import { parsePageRequest } from "@/lib/views/pagination";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/** GET /api/clusters/{cluster}/topics?sort=topic|partitions&q=&limit=&cursor= — one page of a cluster's topics. */
export async function GET(request: Request, ctx: { params: Promise<{ cluster: string }> }) {
  return handleRoute(async () => {
    const { cluster } = await ctx.params;
    const pageRequest = parsePageRequest(new URL(request.url).searchParams, clusterTopicList);
    return jsonResponse(pageClusterTopics(requireSnapshot(), cluster, pageRequest));
  });
}
