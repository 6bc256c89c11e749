import { PageHeader } from "@/components/layout/page-header";
import { NotFoundDetails } from "@/components/layout/not-found-details";
import { readRequestTime } from "@/lib/views/clock";
import { readNotFoundIndex } from "@/lib/views/not-found";
import { readLatestModel } from "@/lib/views/runtime-data";

/** HTTP 404 for an unknown flow, topic, partition or group: what the URL asked for and what exists instead. */
export default function FlowRouteNotFound() {
  const model = readLatestModel();
  return (
    <>
      <PageHeader title="Not found" updatedAt={model?.snapshot.takenAt ?? null} now={readRequestTime()} />
      <NotFoundDetails index={model ? readNotFoundIndex(model) : { flows: [] }} />
    </>
  );
}
