import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { PageHeader } from "@/components/layout/page-header";
import { TimeRangePicker } from "@/components/layout/time-range-picker";
import { CatchUpLine } from "@/components/coverage/catch-up-line";
import { PartitionDetail } from "@/components/partition/partition-detail";
import { TextLink } from "@/components/ui/text-link";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { flowPartitionKey } from "@/lib/collector/types";
import { formatPartitionName, titleOfFlowPage } from "@/lib/views/page-titles";
import { readFlowCatchUp } from "@/lib/views/catch-up";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath, lookupFlow } from "@/lib/views/flow-page";
import { placeAlertMarks, shapeCurrentValues, shapeOffsetPoints, shapeOffsetSyncs } from "@/lib/views/partition";
import { readLatestModel } from "@/lib/views/runtime-data";
import { parseTimeRange } from "@/lib/views/time-range";
import { lookupFlowPartition } from "@/lib/views/partition-lookup";
import { findSourcePartitionState } from "@/lib/views/topic";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string; topic: string; partition: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: titleOfFlowPage(decodePathSegment(p.flow), formatPartitionName(decodePathSegment(p.topic), decodePathSegment(p.partition))) };
}

/** One upstream partition: offsets and lag over time with data loss and resets marked, current values, offset syncs. */
export default async function PartitionPage({ params, searchParams }: Props) {
  const [p, search] = await Promise.all([params, searchParams]);
  const topic = decodePathSegment(p.topic);
  const now = readRequestTime();
  const range = parseTimeRange(search.range, now);
  const title = `Partition ${topic}-${p.partition}`;
  const picker = (
    <Suspense fallback={null}>
      <TimeRangePicker />
    </Suspense>
  );
  const model = readLatestModel();
  const snapshot = model?.snapshot;
  if (!model || !snapshot) {
    return (
      <>
        <PageHeader title={title} updatedAt={null} now={now}>{picker}</PageHeader>
        <NoDataYet />
      </>
    );
  }
  const lookup = lookupFlow(snapshot, p.flow);
  // Before anything suspends: a 404 status can only be sent before the page starts streaming.
  if (!lookup.found) notFound();
  const flow = lookup.flow;
  const topicHref = flowPath(flow.id, "topics", topic);
  const found = lookupFlowPartition(flow, topic, p.partition);
  if (!found.found) notFound();
  const current = found.partition;
  const runtime = getServingRuntime();
  const samples = await runtime.store.readPartitionHistory(flow.id, topic, current.partition, range.from, range.to);
  const state = findSourcePartitionState(snapshot, flow, topic, current.partition);
  const broker = state
    ? [
        { label: "Leader (source)", value: state.leader === null ? "none (offline)" : String(state.leader) },
        { label: "ISR / replicas", value: `${state.isr.join(",")} / ${state.replicas.join(",")}` },
      ]
    : [];
  const subtitle = (
    <>
      <TextLink href={`${flowPath(flow.id)}?range=${range.key}`}>Flow {flow.id}</TextLink> · <TextLink href={`${topicHref}?range=${range.key}`}>topic {topic}</TextLink> · replicated to{" "}
      <span className="font-mono">
        {current.targetTopic}-{current.partition}
      </span>{" "}
      on {flow.target}
    </>
  );
  const alerts = runtime.alerts.list({ flow: flow.id }).filter((a) => a.topic === topic && a.partition === current.partition);
  const flowCatchUp = readFlowCatchUp(model.progress, flow);
  const catchUp = flowCatchUp.partitions.find((x) => x.topic === topic && x.partition === current.partition);
  return (
    <>
      <PageHeader title={title} subtitle={subtitle} updatedAt={snapshot.takenAt} now={now}>
        {picker}
      </PageHeader>
      {catchUp ? (
        <div className="mb-4">
          <CatchUpLine estimate={catchUp} windowSeconds={flowCatchUp.windowSeconds} />
        </div>
      ) : null}
      <PartitionDetail
        points={shapeOffsetPoints(samples)}
        marks={placeAlertMarks(samples, alerts, range)}
        rangeLabel={range.label}
        spanMs={range.to - range.from}
        current={shapeCurrentValues(current)}
        broker={broker}
        syncs={shapeOffsetSyncs(model, flowPartitionKey(flow.id, topic, current.partition))}
      />
    </>
  );
}
