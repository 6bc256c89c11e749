import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { preload } from "react-dom";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { PageHeader } from "@/components/layout/page-header";
import { SyntheticBanner } from "@/components/topic/synthetic-banner";
import { TopicDataProvider, TopicPartitions, TopicSummary } from "@/components/topic/topic-data";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TextLink } from "@/components/ui/text-link";
import { titleOfFlowPage } from "@/lib/views/page-titles";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath, lookupFlow } from "@/lib/views/flow-page";
import { readLatestSnapshot } from "@/lib/views/runtime-data";
import { parseTimeRange } from "@/lib/views/time-range";
import { listFlowTopicPartitions, parseSyntheticParam } from "@/lib/views/topic";
import { shellTopicPlaceholder, topicPageDataPath } from "@/lib/views/topic-page-data";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string; topic: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: titleOfFlowPage(decodePathSegment(p.flow), decodePathSegment(p.topic)) };
}

/**
 * One replicated topic: every partition's offsets side by side (virtualized table). The server renders a shell that
 * depends on the topic through its name only; the figures and rows are the topic's page data, read by the client
 * (components/topic/topic-data.tsx). So the response cache answers every topic of a flow from one render of the
 * shell (lib/api/topic-shell.ts, docs/read-model-format.md "Pages the response cache cannot serve").
 */
export default async function TopicPage({ params, searchParams }: Props) {
  const [{ flow: rawFlow, topic: rawTopic }, search] = await Promise.all([params, searchParams]);
  const topic = decodePathSegment(rawTopic);
  const now = readRequestTime();
  const range = parseTimeRange(search.range, now);
  const synthetic = parseSyntheticParam(search.synthetic);
  const snapshot = readLatestSnapshot();
  if (!snapshot) {
    return (
      <>
        <PageHeader title={`Topic ${topic}`} updatedAt={null} now={now} />
        <NoDataYet />
      </>
    );
  }
  const lookup = lookupFlow(snapshot, rawFlow);
  // Before anything suspends: a 404 status can only be sent before the page starts streaming.
  if (!lookup.found) notFound();
  const flow = lookup.flow;
  // The shell's own render (the placeholder topic) is the page of every topic the flow lists: no existence check.
  const listed = topic === shellTopicPlaceholder || listFlowTopicPartitions(flow, topic).length > 0;
  if (!listed && synthetic === 0) notFound();
  const base = flowPath(flow.id, "topics", topic);
  const dataPath = topicPageDataPath(flow.id, topic);
  // Fetched while the browser reads the HTML, not after hydration; TopicDataProvider's fetch takes this answer.
  preload(dataPath, { as: "fetch", crossOrigin: "anonymous" });
  const subtitle = (
    <>
      <TextLink href={`${flowPath(flow.id)}?range=${range.key}`}>Flow {flow.id}</TextLink> ·{" "}
      <TopicSummary target={flow.target} synthetic={synthetic} />
    </>
  );
  return (
    <TopicDataProvider path={dataPath} takenAt={snapshot.takenAt}>
      <PageHeader title={`Topic ${topic}`} subtitle={subtitle} updatedAt={snapshot.takenAt} now={now} />
      {synthetic > 0 ? <SyntheticBanner count={synthetic} realHref={base} /> : null}
      <Card>
        <CardHeader>
          <CardTitle>Partitions</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Leader, epoch and ISR are read from the source cluster {flow.source}</span>
        </CardHeader>
        <CardContent>
          <TopicPartitions synthetic={synthetic} hrefBase={base} hrefQuery={`?range=${range.key}`} />
        </CardContent>
      </Card>
    </TopicDataProvider>
  );
}
