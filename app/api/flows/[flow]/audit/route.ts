import { handleRoute, jsonResponse } from "@/lib/api/json";
import { readFlowAudit } from "@/lib/views/audit";
import { decodeFlowParam } from "@/lib/views/params";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/audit — the content audit: records compared per topic (matched, mismatched, missing,
 * duplicates, foreign), the time range covered, the newest problems with exact source and target offsets, and the
 * last cycle's cost (Fetch requests, bytes, CPU ms). Offsets are decimal strings; payloads are never included.
 */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => jsonResponse(readFlowAudit(decodeFlowParam((await ctx.params).flow))));
}
