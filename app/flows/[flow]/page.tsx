import type { Metadata } from "next";
import { Suspense } from "react";
import { FlowNotFound } from "@/components/flow/flow-not-found";
import { FlowSummaryCard } from "@/components/flow/flow-summary";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { TopicTable } from "@/components/flow/topic-table";
import { PageHeader } from "@/components/layout/page-header";
import { TimeRangePicker } from "@/components/layout/time-range-picker";
import { ReadinessPanel } from "@/components/readiness/readiness-panel";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { getRuntime } from "@/lib/collector/singleton";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath, lookupFlow, shapeFlowTopicRows } from "@/lib/views/flow-page";
import { summarizeFlow } from "@/lib/views/flows";
import { assessReadinessInSnapshot } from "@/lib/views/readiness-data";
import { readLatestSnapshot } from "@/lib/views/runtime-data";
import { parseTimeRange } from "@/lib/views/time-range";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Flow ${decodePathSegment((await params).flow)}` };
}

/** One MM2 flow: can it fail over now, its summary, then its topics with lag sparklines over the selected range. */
export default async function FlowPage({ params, searchParams }: Props) {
  const [{ flow: rawFlow }, search] = await Promise.all([params, searchParams]);
  const now = readRequestTime();
  const range = parseTimeRange(search.range, now);
  const picker = (
    <Suspense fallback={null}>
      <TimeRangePicker />
    </Suspense>
  );
  const snapshot = readLatestSnapshot();
  if (!snapshot) {
    return (
      <>
        <PageHeader title={`Flow ${decodePathSegment(rawFlow)}`} updatedAt={null} now={now}>{picker}</PageHeader>
        <NoDataYet />
      </>
    );
  }
  const lookup = lookupFlow(snapshot, rawFlow);
  if (!lookup.found) {
    return (
      <>
        <PageHeader title="Flow not found" updatedAt={snapshot.takenAt} now={now} />
        <FlowNotFound id={lookup.id} known={lookup.known} />
      </>
    );
  }
  const flow = lookup.flow;
  const rows = shapeFlowTopicRows(flow, getRuntime().store.readTopicLagSeries(flow.id, range.from, range.to));
  const topicHref = Object.fromEntries(rows.map((r) => [r.topic, `${flowPath(flow.id, "topics", r.topic)}?range=${range.key}`]));
  return (
    <>
      <PageHeader title={`Flow ${flow.source} → ${flow.target}`} subtitle={<span className="font-mono">{flow.id}</span>} updatedAt={snapshot.takenAt} now={now}>
        {picker}
      </PageHeader>
      <ReadinessPanel readiness={assessReadinessInSnapshot(snapshot, flow, now)} />
      <FlowSummaryCard flow={summarizeFlow(snapshot, flow)} />
      <Card>
        <CardHeader>
          <CardTitle>Topics</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Lag sparklines: last {range.label}, per minute</span>
        </CardHeader>
        <CardContent>
          <TopicTable rows={rows} topicHref={topicHref} />
        </CardContent>
      </Card>
    </>
  );
}
