import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { ContentAuditCard } from "@/components/flow/content-audit-card";
import { FlowRereadCard } from "@/components/flow/flow-reread-card";
import { FlowSummaryCard } from "@/components/flow/flow-summary";
import { ConnectorMissingNotice } from "@/components/flow/connector-missing-notice";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { TopicTable } from "@/components/flow/topic-table";
import { PageHeader } from "@/components/layout/page-header";
import { TimeRangePicker } from "@/components/layout/time-range-picker";
import { BlindSpotNotice } from "@/components/acls/blind-spot-notice";
import { CatchUpLine } from "@/components/coverage/catch-up-line";
import { CoverageCard } from "@/components/coverage/coverage-card";
import { ReadinessPanel } from "@/components/readiness/readiness-panel";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { deriveBlindSpots } from "@/lib/acls/blind-spots";
import { isAdmin } from "@/lib/auth/session";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { titleOfFlowPage } from "@/lib/views/page-titles";
import { readFlowCatchUp } from "@/lib/views/catch-up";
import { readAuditOf } from "@/lib/views/audit";
import { readRequestTime } from "@/lib/views/clock";
import { readFlowCoverage } from "@/lib/views/coverage";
import { readFlowHealth } from "@/lib/views/flow-health";
import { readPrincipals } from "@/lib/views/health";
import { readCycleFlowRereads } from "@/lib/views/flow-rereads";
import { decodePathSegment, lookupFlow, shapeFlowTopicRows } from "@/lib/views/flow-page";
import { parseTopicTableView, selectTopicTableRows } from "@/lib/views/flow-topic-table";
import { readFlowSummary, readFlowTopicRows } from "@/lib/views/flow-lists";
import { ageFlowHealth, readDataAge } from "@/lib/views/data-age";
import { readServedReadiness } from "@/lib/views/readiness-data";
import { readLatestModel } from "@/lib/views/runtime-data";
import { parseTimeRange, timeRanges } from "@/lib/views/time-range";
import { readTopicSparklines, sparkBucketMs } from "@/lib/views/topic-sparklines";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: titleOfFlowPage(decodePathSegment((await params).flow)) };
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
  const model = readLatestModel();
  if (!model) {
    return (
      <>
        <PageHeader title={`Flow ${decodePathSegment(rawFlow)}`} updatedAt={null} now={now}>{picker}</PageHeader>
        <NoDataYet />
      </>
    );
  }
  const snapshot = model.snapshot;
  const lookup = lookupFlow(snapshot, rawFlow);
  // Before anything suspends: a 404 status can only be sent before the page starts streaming.
  if (!lookup.found) notFound();
  const flow = lookup.flow;
  const summary = readFlowSummary(snapshot, flow);
  const age = readDataAge(model, now);
  const catchUp = readFlowCatchUp(model.progress, flow);
  // Everything below is computed once per cycle (flow-lists.ts, topic-sparklines.ts): a request shapes, it does not sum.
  const rangeMs = timeRanges[range.key].ms;
  const sparks = await readTopicSparklines(getServingRuntime().store, snapshot, flow, { key: range.key, ms: rangeMs });
  const view = parseTopicTableView(search);
  const topics = selectTopicTableRows(readFlowTopicRows(snapshot, flow), view);
  const translation = model.translations.get(flow.id);
  const rereads = translation ? await readCycleFlowRereads(getServingRuntime().store, translation, range) : null;
  const bucketMinutes = sparkBucketMs(rangeMs) / 60_000;
  const blindSpots = deriveBlindSpots(snapshot, readPrincipals()).filter((b) => b.cluster === flow.source || b.cluster === flow.target);
  return (
    <>
      <PageHeader title={`Flow ${flow.source} → ${flow.target}`} subtitle={<span className="font-mono">{flow.id}</span>} updatedAt={snapshot.takenAt} now={now}>
        {picker}
      </PageHeader>
      <BlindSpotNotice spots={blindSpots} />
      {flow.connectorMissing ? (
        <ConnectorMissingNotice
          flowId={flow.id}
          connectors={flow.connectorMissing.connectors}
          connectCluster={flow.connectors.connectCluster}
          since={flow.connectorMissing.since}
          now={now}
          canAct={isAdmin(await headers(), await cookies())}
        />
      ) : null}
      <ReadinessPanel readiness={readServedReadiness(model, flow, now)} />
      <FlowSummaryCard flow={summary} health={ageFlowHealth(readFlowHealth(model, flow, summary), age)} />
      <div className="mb-4">
        <CatchUpLine estimate={catchUp} windowSeconds={catchUp.windowSeconds} />
      </div>
      <CoverageCard coverage={readFlowCoverage(snapshot, flow)} now={snapshot.takenAt} />
      <FlowRereadCard flowId={flow.id} series={rereads} rangeLabel={range.label} spanMs={rangeMs} />
      <ContentAuditCard page={readAuditOf(model, flow.id)} />
      <Card>
        <CardHeader>
          <CardTitle>Topics</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Lag sparklines: last {range.label}, {bucketMinutes === 1 ? "per minute" : `highest per ${bucketMinutes} min`}</span>
        </CardHeader>
        <CardContent>
          <TopicTable flowId={flow.id} range={range.key} view={view} rows={shapeFlowTopicRows(topics.rows, sparks)} matching={topics.matching} total={topics.total} />
        </CardContent>
      </Card>
    </>
  );
}
