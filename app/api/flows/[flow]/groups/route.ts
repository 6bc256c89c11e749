import { handleRoute, jsonResponse } from "@/lib/api/json";
import { groupList, listGroupSummaries, readFlowTranslation } from "@/lib/views/groups";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/groups?sort=group|replay|lag&q=&limit=&cursor= — one page of the consumer groups MM2
 * checkpoints on the flow, with totals (records replayed if we fail over now, re-reads, skipping and
 * untranslatable partitions, the first 20 of those listed), and the flow's totals over every group.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const flowId = decodeFlowParam((await ctx.params).flow);
    const pageRequest = parsePageRequest(new URL(request.url).searchParams, groupList);
    return jsonResponse(listGroupSummaries(readFlowTranslation(flowId), pageRequest));
  });
}
