import { handleRoute, jsonResponse } from "@/lib/api/json";
import { requireAdmin } from "@/lib/auth/session";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { BadRequestError, NotFoundError } from "@/lib/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/alerts/{id}/acknowledge — signed-in admin only (401 without a session, 403 from
 * another origin or without a JSON content type). The alert stays firing but leaves the banner
 * until it fires anew. On a web instance (GAPWATCH_ROLE=web) the acknowledgement is queued in the store and applied
 * by the collector that holds the alert at its next cycle; pages show it once that cycle is published.
 */
export async function POST(request: Request, ctx: { params: Promise<{ id: string }> }) {
  return handleRoute(async () => {
    requireAdmin(request);
    const { id } = await ctx.params;
    if (!/^[0-9a-f]{16}$/.test(id)) throw new BadRequestError(`alert id must be 16 hex digits, got "${id}"`);
    const alert = await getServingRuntime().alerts.acknowledge(id, "admin", Date.now());
    if (!alert) throw new NotFoundError(`no alert ${id}`);
    return jsonResponse({ alert });
  });
}
