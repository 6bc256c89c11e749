import { handleRoute } from "@/lib/api/json";
import { respondFromModel } from "@/lib/api/model-answers";
import { pickCatchUpOf, readFlowCatchUp } from "@/lib/views/catch-up";
import { flowPartitionList, listCheckpointsOf, pageFirstFlowTopics, pageFlowPartitions, readFlowSummary } from "@/lib/views/flow-lists";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireReadModel } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}?limit=&cursor=&sort=lag|lagSeconds|topic&q= — one page of per-partition rows (`page`), the
 * first page of per-topic rows in the same order and filter (`topicsPage`; more from /api/flows/{flow}/topics),
 * the latest checkpoints of the page's partitions, the heartbeat, the flow summary and the time to catch up (the
 * flow's, and the page's partitions'). Offsets as decimal strings.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const model = requireReadModel();
    const snapshot = model.snapshot;
    const flow = requireFlow(snapshot, decodeFlowParam((await ctx.params).flow));
    const params = new URL(request.url).searchParams;
    const pageRequest = parsePageRequest(params, flowPartitionList);
    // The parsed request, plus the cursor as sent (valid, since it parsed): one answer per model and query.
    const key = [flow.id, pageRequest.sort, pageRequest.limit, pageRequest.q ?? "", params.get("cursor") ?? ""].join("\u0000");
    return respondFromModel(model, key, () => {
      const partitions = pageFlowPartitions(snapshot, flow, pageRequest);
      const topics = pageFirstFlowTopics(snapshot, flow, pageRequest);
      return {
        takenAt: snapshot.takenAt,
        flow: readFlowSummary(snapshot, flow),
        topics: topics.items,
        topicsPage: topics.page,
        partitions: partitions.items,
        page: partitions.page,
        checkpoints: listCheckpointsOf(snapshot, flow, partitions.items),
        heartbeat: flow.heartbeat,
        // The flow's time to catch up, with the partitions of the page only.
        catchUp: pickCatchUpOf(readFlowCatchUp(model.progress, flow), partitions.items),
      };
    });
  });
}
