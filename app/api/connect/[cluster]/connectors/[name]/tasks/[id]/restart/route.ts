import { handleRoute, jsonResponse } from "@/lib/api/json";
import { requireAdmin } from "@/lib/auth/session";
import { restartTask } from "@/lib/connect";
import { parseTaskIdParam, resolveConnectEndpoint } from "@/lib/views/connect";

export const dynamic = "force-dynamic";

/**
 * POST /api/connect/{cluster}/connectors/{name}/tasks/{id}/restart — admin only: same-origin JSON
 * (403 otherwise), signed-in session (401 otherwise). Connect restarts asynchronously: 202. A Connect cluster read
 * from its internal topics only (no url) cannot be asked: 409 with why and how to restart it where MM2 runs.
 */
export async function POST(request: Request, ctx: { params: Promise<{ cluster: string; name: string; id: string }> }) {
  return handleRoute(async () => {
    requireAdmin(request);
    const params = await ctx.params;
    // Next hands route params over already percent-decoded; connector names may hold any character.
    const { cluster, name: connector } = params;
    const taskId = parseTaskIdParam(params.id);
    await restartTask(resolveConnectEndpoint(cluster, { connector, taskId }), connector, taskId);
    return jsonResponse({ restarted: { cluster, connector, taskId }, note: "Connect restarts the task asynchronously; the next poll shows its state" }, 202);
  });
}
