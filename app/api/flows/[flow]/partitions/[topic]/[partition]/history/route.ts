import { handleRoute, jsonResponse, parseTimeParam } from "@/lib/api/json";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { BadRequestError } from "@/lib/errors";
import { pageHistory, historyList } from "@/lib/views/history";
import { parsePageRequest } from "@/lib/views/pagination";
import { decodeFlowParam, parsePartitionParam } from "@/lib/views/params";
import { requireKnownPartition } from "@/lib/views/partition-lookup";
import { readLatestSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/partitions/{topic}/{partition}/history?from=&to=&limit=&cursor= — offsets over time, oldest
 * first (raw samples for the last hour, per-minute before), one page of them. from/to: epoch ms or ISO; default last hour.
 * 404 for a flow, topic or partition the latest cycle does not know and with no samples in the window.
 */
export async function GET(request: Request, ctx: { params: Promise<{ flow: string; topic: string; partition: string }> }) {
  return handleRoute(async () => {
    const params = await ctx.params;
    const search = new URL(request.url).searchParams;
    const to = parseTimeParam(search, "to", Date.now());
    const from = parseTimeParam(search, "from", to - 60 * 60 * 1000);
    if (from > to) throw new BadRequestError(`"from" (${from}) must not be after "to" (${to})`);
    const pageRequest = parsePageRequest(search, historyList);
    const flow = decodeFlowParam(params.flow);
    const topic = decodeURIComponent(params.topic);
    const partition = parsePartitionParam(params.partition);
    const samples = await getServingRuntime().store.readPartitionHistory(flow, topic, partition, from, to);
    requireKnownPartition(readLatestSnapshot(), flow, topic, partition, samples.length);
    const { items, page } = pageHistory(samples, pageRequest);
    return jsonResponse({ flow, topic, partition, from, to, samples: items, page });
  });
}
