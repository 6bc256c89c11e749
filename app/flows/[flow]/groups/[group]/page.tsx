import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { GroupSummary } from "@/components/groups/group-summary";
import { PartitionPageNav } from "@/components/groups/partition-page-nav";
import { PartitionTable } from "@/components/groups/partition-table";
import { RereadChart } from "@/components/groups/reread-chart";
import { UncheckpointedPartitionTable } from "@/components/groups/uncheckpointed-groups";
import { PageHeader } from "@/components/layout/page-header";
import { TimeRangePicker } from "@/components/layout/time-range-picker";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { titleOfFlowPage } from "@/lib/views/page-titles";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath } from "@/lib/views/flow-page";
import { groupPagePath, loadGroupPage, readGroupPageRequest } from "@/lib/views/groups";
import { parseTimeRange } from "@/lib/views/time-range";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string; group: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The browser tab title. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: titleOfFlowPage(decodePathSegment(p.flow), `Group ${decodePathSegment(p.group)}`) };
}

/** One consumer group: per-partition translation, failover plans, and re-reads against lag over time. */
export default async function GroupPage({ params, searchParams }: Props) {
  const [{ flow: rawFlow, group: rawGroup }, search] = await Promise.all([params, searchParams]);
  const now = readRequestTime();
  const range = parseTimeRange(search.range, now);
  const list = readGroupPageRequest(search);
  const page = await loadGroupPage(rawFlow, rawGroup, range, list.request);
  const picker = (
    <Suspense fallback={null}>
      <TimeRangePicker />
    </Suspense>
  );
  if (page.kind === "no-data") {
    return (
      <>
        <PageHeader title={`Group ${decodePathSegment(rawGroup)}`} updatedAt={null} now={now} />
        <NoDataYet />
      </>
    );
  }
  // Before anything suspends: a 404 status can only be sent before the page starts streaming.
  if (page.kind === "flow-not-found" || page.kind === "group-not-found") notFound();
  if (page.kind === "uncheckpointed") {
    const { translation: t, group } = page;
    return (
      <>
        <PageHeader
          title={`Group ${group.group}`}
          subtitle={
            <>
              {t.source} → {t.target} · {group.groupType} group · {group.state}, {group.members} member{group.members === 1 ? "" : "s"} ·{" "}
              <TextLink href={flowPath(t.flow, "groups")}>all groups</TextLink>
            </>
          }
          updatedAt={page.takenAt}
          now={now}
        />
        <EmptyState tone="warn" title="MM2 does not checkpoint this group" className="mb-4" data-testid="group-not-checkpointed">
          <p>{group.note}</p>
          <p>Gapwatch shows where the group stands on {t.source}; it translates nothing and raises no checkpoint alert for it.</p>
          {group.unknown !== null ? <p>Offsets not read this cycle — {group.unknown}</p> : null}
        </EmptyState>
        <Card>
          <CardHeader>
            <CardTitle>Partitions</CardTitle>
          </CardHeader>
          <CardContent>
            <UncheckpointedPartitionTable rows={group.partitions} />
          </CardContent>
        </Card>
      </>
    );
  }
  const { translation: t, group, detail } = page;
  return (
    <>
      <PageHeader
        title={`Group ${group.group}`}
        subtitle={
          <>
            {t.source} → {t.target} · {group.state}, {group.members} member{group.members === 1 ? "" : "s"} · <TextLink href={flowPath(t.flow, "groups")}>all groups</TextLink>
          </>
        }
        updatedAt={page.takenAt}
        now={now}
      >
        {picker}
      </PageHeader>
      <GroupSummary flow={t.flow} target={t.target} group={group} plans={detail.plans} />
      <Card className="mb-4">
        <CardHeader>
          <CardTitle>Re-reads against the group&apos;s lag</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Last {range.label}; one sample per poll cycle (per minute beyond an hour)</span>
        </CardHeader>
        <CardContent>
          <RereadChart series={page.series} spanMs={range.to - range.from} />
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Partitions</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Re-read = ideal − offset; brackets count their high bound; negative counts are records SKIPPED</span>
        </CardHeader>
        <CardContent>
          <PartitionPageNav basePath={groupPagePath(t.flow, group.group)} page={detail.page} q={list.request.q} shown={detail.partitions.length} range={range.key} problem={list.problem} />
          <PartitionTable rows={detail.partitions} />
        </CardContent>
      </Card>
    </>
  );
}
