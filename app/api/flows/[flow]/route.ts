import { handleRoute, jsonResponse } from "@/lib/api/json";
import { type FlowCatchUp, readFlowCatchUp } from "@/lib/views/catch-up";
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
    const pageRequest = parsePageRequest(new URL(request.url).searchParams, flowPartitionList);
    const partitions = pageFlowPartitions(snapshot, flow, pageRequest);
    const topics = pageFirstFlowTopics(snapshot, flow, pageRequest);
    return jsonResponse({
      takenAt: snapshot.takenAt,
      flow: readFlowSummary(snapshot, flow),
      topics: topics.items,
      topicsPage: topics.page,
      partitions: partitions.items,
      page: partitions.page,
      checkpoints: listCheckpointsOf(snapshot, flow, partitions.items),
      heartbeat: flow.heartbeat,
      catchUp: pickPageCatchUp(readFlowCatchUp(model.progress, flow), partitions.items),
    });
  });
}

/** The flow's time to catch up, with the partitions of the page only (a flow may have 100,000). */
function pickPageCatchUp(catchUp: FlowCatchUp, page: readonly { topic: string; partition: number }[]) {
  const wanted = new Set(page.map((p) => `${p.topic}/${p.partition}`));
  return { ...catchUp, partitions: catchUp.partitions.filter((p) => wanted.has(`${p.topic}/${p.partition}`)) };
}
