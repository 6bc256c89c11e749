import { headers } from "next/headers";
import { PageHeader } from "@/components/layout/page-header";
import { NotFoundDetails } from "@/components/layout/not-found-details";
import { readRequestTime } from "@/lib/views/clock";
import { explainNotFound, parseFlowRoutePath, readNotFoundIndex, requestPathHeader } from "@/lib/views/not-found";
import { readLatestModel } from "@/lib/views/runtime-data";

/**
 * HTTP 404 for an unknown flow, topic, partition or group: what the URL asked for and what exists instead. Rendered
 * with every page under /flows/<flow> (Next.js's not-found boundary), so it explains the request's own path (set by
 * proxy.ts) and hands the page only that explanation.
 */
export default async function FlowRouteNotFound() {
  const model = readLatestModel();
  const params = parseFlowRoutePath((await headers()).get(requestPathHeader) ?? "");
  const why = explainNotFound(model ? readNotFoundIndex(model) : { flows: [] }, params);
  return (
    <>
      <PageHeader title="Not found" updatedAt={model?.snapshot.takenAt ?? null} now={readRequestTime()} />
      <NotFoundDetails why={why} />
    </>
  );
}
