import { handleRoute, jsonResponse } from "@/lib/api/json";
import { decodeFlowParam } from "@/lib/views/params";
import { readFlowReadiness } from "@/lib/views/readiness-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/readiness — the failover verdict, every check with its evidence, what failing over now costs;
 * unknown, with a freshness check first, while the data is stale.
 */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => jsonResponse(readFlowReadiness(decodeFlowParam((await ctx.params).flow), Date.now())));
}
