import { handleRoute, jsonResponse } from "@/lib/api/json";
import { BadRequestError } from "@/lib/errors";
import { clusterTopicList, pageClusterViews } from "@/lib/views/clusters";
import { parsePageRequest } from "@/lib/views/pagination";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/clusters?sort=topic|partitions&q=&limit= — clusters with reachability, data age and counts, each with the
 * first page of its topics (partition counts and summed offsets) and `topicsPage` (more from /api/clusters/{cluster}/topics).
 */
export function GET(request: Request) {
  return handleRoute(() => {
    const pageRequest = parsePageRequest(new URL(request.url).searchParams, clusterTopicList);
    if (pageRequest.after !== null) throw new BadRequestError('query parameter "cursor" pages one cluster\'s topics: use /api/clusters/{cluster}/topics?cursor=');
    return jsonResponse({ clusters: pageClusterViews(requireSnapshot(), Date.now(), pageRequest) });
  });
}
