import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { PageHeader } from "@/components/layout/page-header";
import { PartitionTable } from "@/components/topic/partition-table";
import { SyntheticBanner } from "@/components/topic/synthetic-banner";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TextLink } from "@/components/ui/text-link";
import { formatCount } from "@/lib/format";
import { titleOfFlowPage } from "@/lib/views/page-titles";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath, lookupFlow } from "@/lib/views/flow-page";
import { readLatestSnapshot } from "@/lib/views/runtime-data";
import { parseTimeRange } from "@/lib/views/time-range";
import { listFlowTopicPartitions, parseSyntheticParam, shapePartitionRows } from "@/lib/views/topic";
import { packPartitionRows } from "@/lib/views/topic-row-columns";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string; topic: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: titleOfFlowPage(decodePathSegment(p.flow), decodePathSegment(p.topic)) };
}

/** One replicated topic: every partition's offsets side by side (virtualized table). */
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
  const partitions = listFlowTopicPartitions(flow, topic);
  const base = flowPath(flow.id, "topics", topic);
  if (partitions.length === 0 && synthetic === 0) notFound();
  const lag = partitions.reduce((s, p) => s + (p.lag ?? 0n), 0n);
  const subtitle = (
    <>
      <TextLink href={`${flowPath(flow.id)}?range=${range.key}`}>Flow {flow.id}</TextLink> · replicated as <span className="font-mono">{partitions[0]?.targetTopic ?? "?"}</span> on {flow.target} · {partitions.length} partitions · lag{" "}
      {formatCount(lag)} records
    </>
  );
  return (
    <>
      <PageHeader title={`Topic ${topic}`} subtitle={subtitle} updatedAt={snapshot.takenAt} now={now} />
      {synthetic > 0 ? <SyntheticBanner count={synthetic} realHref={base} /> : null}
      <Card>
        <CardHeader>
          <CardTitle>Partitions</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Leader, epoch and ISR are read from the source cluster {flow.source}</span>
        </CardHeader>
        <CardContent>
          <PartitionTable rows={packPartitionRows(synthetic > 0 ? [] : shapePartitionRows(snapshot, flow, topic))} synthetic={synthetic} hrefBase={base} hrefQuery={`?range=${range.key}`} />
        </CardContent>
      </Card>
    </>
  );
}
