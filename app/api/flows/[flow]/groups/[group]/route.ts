import { handleRoute, jsonResponse } from "@/lib/api/json";
import { decodeGroupParam, describeGroup, readFlowTranslation, requireGroup } from "@/lib/views/groups";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/groups/{group} — per partition: committed offset, MM2's translation, the
 * latest checkpoint and its age, the ideal target offset, re-read counts; and both failover plans.
 */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string; group: string }> }) {
  return handleRoute(async () => {
    const params = await ctx.params;
    const ft = readFlowTranslation(decodeFlowParam(params.flow));
    return jsonResponse(describeGroup(ft, requireGroup(ft, decodeGroupParam(params.group))));
  });
}
