import { handleRoute, jsonResponse } from "@/lib/api/json";
import { coverageList, pageFlowCoverage } from "@/lib/views/coverage";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/coverage?limit=&cursor=&sort=status|topic&q= — every source topic of the flow: replicated
 * (with source/target drift), matched but missing on the target, not matched (with the rule), internal:
 * `{ takenAt, flow, filter, known, counts, items, page }`.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const snapshot = requireSnapshot();
    const flow = requireFlow(snapshot, decodeFlowParam((await ctx.params).flow));
    const coverage = pageFlowCoverage(snapshot, flow, parsePageRequest(new URL(request.url).searchParams, coverageList));
    return jsonResponse({ takenAt: snapshot.takenAt, ...coverage });
  });
}
