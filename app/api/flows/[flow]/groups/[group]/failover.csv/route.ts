import { handleRoute, jsonResponse } from "@/lib/api/json";
import { decodeGroupParam, parseFailoverMode, readFlowTranslation, renderFailoverCsv, requireGroup } from "@/lib/views/groups";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/groups/{group}/failover.csv?mode=mm2|precise — the group's target offsets
 * as `kafka-consumer-groups.sh --reset-offsets --from-file` reads them (text/csv attachment; notes
 * in X-Gapwatch-* headers). 400 for a bad mode, 404 for an unknown flow or group, 409 when no
 * partition has an offset to plan.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string; group: string }> }) {
  return handleRoute(async () => {
    const params = await ctx.params;
    const mode = parseFailoverMode(new URL(request.url).searchParams.get("mode"));
    const ft = readFlowTranslation(decodeFlowParam(params.flow));
    const csv = renderFailoverCsv(ft, requireGroup(ft, decodeGroupParam(params.group)), mode);
    if (csv.kind === "empty") return jsonResponse({ error: csv.message, code: "GW_EMPTY_PLAN" }, 409);
    return new Response(csv.body, {
      status: 200,
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${csv.filename}"`,
        "cache-control": "no-store",
        ...csv.headers,
      },
    });
  });
}
