import { handleRoute, jsonResponse } from "@/lib/api/json";
import { listPartitionRows, listTopicRows, summarizeFlow } from "@/lib/views/flows";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/** GET /api/flows/{flow} — per-topic and per-partition rows (offsets as decimal strings). */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const snapshot = requireSnapshot();
    const flow = requireFlow(snapshot, decodeFlowParam((await ctx.params).flow));
    return jsonResponse({
      takenAt: snapshot.takenAt,
      flow: summarizeFlow(snapshot, flow),
      topics: listTopicRows(flow),
      partitions: listPartitionRows(flow),
      checkpoints: flow.checkpoints,
      heartbeat: flow.heartbeat,
    });
  });
}
