import { handleRoute, jsonResponse } from "@/lib/api/json";
import { flowTopicList, pageFlowTopics } from "@/lib/views/flow-lists";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/topics?limit=&cursor=&sort=lag|lagSeconds|topic&q= — one page of the flow's per-topic rows
 * (sums over partitions): `{ takenAt, flow, topics, page }`.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string }> }) {
  return handleRoute(async () => {
    const snapshot = requireSnapshot();
    const flow = requireFlow(snapshot, decodeFlowParam((await ctx.params).flow));
    const topics = pageFlowTopics(snapshot, flow, parsePageRequest(new URL(request.url).searchParams, flowTopicList));
    return jsonResponse({ takenAt: snapshot.takenAt, flow: flow.id, topics: topics.items, page: topics.page });
  });
}
