import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { GroupsTable } from "@/components/groups/groups-table";
import { UncheckpointedGroupsTable } from "@/components/groups/uncheckpointed-groups";
import { PageHeader } from "@/components/layout/page-header";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TextLink } from "@/components/ui/text-link";
import { formatCount } from "@/lib/format";
import { titleOfFlowPage } from "@/lib/views/page-titles";
import { readRequestTime } from "@/lib/views/clock";
import { decodePathSegment, flowPath } from "@/lib/views/flow-page";
import { loadGroupsPage } from "@/lib/views/groups";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ flow: string }> };

/** The browser tab title. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: titleOfFlowPage(decodePathSegment((await params).flow), "Consumer groups") };
}

/** The flow's checkpointed consumer groups: what a failover now would replay, skip or leave untranslated. */
export default async function GroupsPage({ params }: Props) {
  const { flow: rawFlow } = await params;
  const now = readRequestTime();
  const page = loadGroupsPage(rawFlow);
  const title = `Consumer groups · ${decodePathSegment(rawFlow)}`;
  if (page.kind === "no-data") {
    return (
      <>
        <PageHeader title={title} updatedAt={null} now={now} />
        <NoDataYet />
      </>
    );
  }
  // Before anything suspends: a 404 status can only be sent before the page starts streaming.
  if (page.kind === "flow-not-found") notFound();
  const t = page.translation;
  return (
    <>
      <PageHeader
        title={`Consumer groups · ${t.source} → ${t.target}`}
        subtitle={
          <>
            Offsets MM2 would give each group on {t.target} if it failed over now · <TextLink href={flowPath(t.flow)}>back to the flow</TextLink>
          </>
        }
        updatedAt={page.takenAt}
        now={now}
      />
      {!t.syncsLoaded ? (
        <p role="alert" className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
          Gapwatch could not read MM2&apos;s offset syncs for this flow: no translation can be modelled until it can.
        </p>
      ) : null}
      <Card>
        <CardHeader>
          <CardTitle>{t.totals.groups} checkpointed group{t.totals.groups === 1 ? "" : "s"}</CardTitle>
          <span className="text-sm" data-testid="flow-replay-total">
            Records replayed if every group failed over now: <span className="font-mono font-semibold">{formatCount(t.totals.failoverReplayRecords)}</span>
            {t.totals.skippingPartitions > 0 ? <span className="ml-2 font-semibold text-red-700 dark:text-red-400">{t.totals.skippingPartitions} partition(s) would SKIP records</span> : null}
          </span>
        </CardHeader>
        <CardContent>
          <GroupsTable translation={t} />
          {t.excludedGroups.length > 0 ? <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">Not checkpointed by MM2 (groups filter): {t.excludedGroups.join(", ")}</p> : null}
        </CardContent>
      </Card>
      {t.uncheckpointedGroups.length > 0 ? (
        <Card className="mt-4">
          <CardHeader>
            <CardTitle>
              {t.uncheckpointedGroups.length} group{t.uncheckpointedGroups.length === 1 ? "" : "s"} MM2 does not checkpoint
            </CardTitle>
            <span className="text-sm">Kafka Streams and share groups: no offsets on {t.target} after a failover</span>
          </CardHeader>
          <CardContent>
            <UncheckpointedGroupsTable flow={t.flow} groups={t.uncheckpointedGroups} />
          </CardContent>
        </Card>
      ) : null}
    </>
  );
}
