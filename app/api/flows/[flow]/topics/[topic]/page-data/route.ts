import { handleRoute } from "@/lib/api/json";
import { respondFromModel } from "@/lib/api/model-answers";
import { NotFoundError } from "@/lib/errors";
import { decodePathSegment } from "@/lib/views/flow-page";
import { decodeFlowParam } from "@/lib/views/params";
import { requireFlow, requireReadModel } from "@/lib/views/runtime-data";
import { shapeTopicPageData } from "@/lib/views/topic-page-data";

export const dynamic = "force-dynamic";

/**
 * GET /api/flows/{flow}/topics/{topic}/page-data — what the topic page shows of one topic (its header's figures and
 * its partition rows as columns: lib/views/topic-page-data.ts); 404 when the flow lists no partition of the topic.
 * Anonymous requests are usually answered by the response cache from the read model (topic-shell-routes.ts) with the
 * same bytes; this route answers the others (a signed-in caller, a cache turned off).
 */
export async function GET(_request: Request, ctx: { params: Promise<{ flow: string; topic: string }> }) {
  return handleRoute(async () => {
    const model = requireReadModel();
    const params = await ctx.params;
    const flow = requireFlow(model.snapshot, decodeFlowParam(params.flow));
    const topic = decodePathSegment(params.topic);
    const data = shapeTopicPageData(model.snapshot, flow, topic);
    if (data === null) throw new NotFoundError(`flow ${flow.id} replicates no partition of topic "${topic}"`);
    return respondFromModel(model, `topic-page-data\u0000${flow.id}\u0000${topic}`, () => data);
  });
}
