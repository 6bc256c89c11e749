import { handleRoute, jsonResponse } from "@/lib/api/json";
import { listGroupSummaries, readFlowTranslation } from "@/lib/views/groups";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/groups — every consumer group MM2 checkpoints on the flow, with totals
 * (records replayed if we fail over now, re-reads, skipping and untranslatable partitions).
 */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const flowId = decodeFlowParam((await ctx.params).flow);
    return jsonResponse(listGroupSummaries(readFlowTranslation(flowId, Date.now())));
  });
}
