import { handleRoute, jsonResponse } from "@/lib/api/json";
import { decodeGroupParam, describeGroup, groupPartitionList, readFlowTranslation, requireGroup } from "@/lib/views/groups";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/groups/{group}?sort=replay|lag|topic&q=&limit=&cursor= — one page of the group's partitions
 * (committed offset, MM2's translation, the latest checkpoint and its age, the ideal target offset, re-read counts);
 * both failover plans' totals with the page's rows (the whole plan: failover.csv).
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string; group: string }> }) {
  return handleRoute(async () => {
    const params = await ctx.params;
    const ft = readFlowTranslation(decodeFlowParam(params.flow));
    const group = requireGroup(ft, decodeGroupParam(params.group));
    return jsonResponse(describeGroup(ft, group, parsePageRequest(new URL(request.url).searchParams, groupPartitionList)));
  });
}
