import type { Metadata } from "next";
import { PageHeader } from "@/components/layout/page-header";
import { RiskTable } from "@/components/risks/risk-table";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { readRequestTime } from "@/lib/views/clock";
import { shapeRisksView } from "@/lib/views/risks";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Risks" };

/** Standing risks: settings and clients that make a loss possible or undetectable. Not alerts: nothing here pages. */
export default function RisksPage() {
  const now = readRequestTime();
  const runtime = getServingRuntime();
  const view = shapeRisksView(runtime.alerts.risks());
  const counts = view.byCluster.map((c) => `${c.cluster}: ${c.risks}`).join(" · ");
  return (
    <>
      <PageHeader title="Risks" subtitle={`${view.risks.length} standing risk${view.risks.length === 1 ? "" : "s"}${counts ? ` (${counts})` : ""} · never alerts`} updatedAt={runtime.models.latest()?.snapshot.takenAt ?? null} now={now} />
      <Card>
        <CardHeader>
          <CardTitle>What could turn into a loss, or hide one</CardTitle>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Posture, not events: fix them when convenient; they never fill the alert banner.</span>
        </CardHeader>
        <CardContent>
          <RiskTable risks={view.risks} now={now} />
        </CardContent>
      </Card>
    </>
  );
}
