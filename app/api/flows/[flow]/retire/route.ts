import { handleRoute, jsonResponse } from "@/lib/api/json";
import { requireAdmin } from "@/lib/auth/session";
import { requestFlowRetirement } from "@/lib/collector/retained-flows";
import { BadRequestError } from "@/lib/errors";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireReadModel } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * POST /api/flows/{flow}/retire — signed-in admin only. Retires a flow whose MirrorSourceConnector Connect no longer
 * lists (MM2_CONNECTOR_MISSING): Gapwatch stops keeping it from the collector's next cycle, and its alert resolves.
 * A flow whose connector Connect lists is refused (400): it is watched while it exists. 202 with the request time.
 */
export async function POST(request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    requireAdmin(request);
    const flow = requireFlow(requireReadModel().snapshot, decodeFlowParam((await ctx.params).flow));
    if (flow.connectorMissing === undefined) {
      throw new BadRequestError(
        `flow ${flow.id} cannot be retired: its source connector is listed by Connect (or Connect does not answer); ` +
          "delete the MirrorSourceConnector first, then retire the flow",
      );
    }
    const retiredAt = Date.now();
    await requestFlowRetirement(getServingRuntime().store, flow.id, retiredAt);
    return jsonResponse({ flow: flow.id, retiredAt, effective: "at the collector's next poll cycle" }, 202);
  });
}
