import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { AlertCard } from "@/components/alerts/alert-card";
import { AlertFilters } from "@/components/alerts/alert-filters";
import { PageHeader } from "@/components/layout/page-header";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { isAwaitingAttention } from "@/lib/alerts/loss-alerts";
import { isAdmin } from "@/lib/auth/session";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { parseAlertFilter } from "@/lib/views/alerts";
import { readRequestTime } from "@/lib/views/clock";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function AlertsPage({ searchParams }: { searchParams: Search }) {
  const raw = await searchParams;
  const params = new URLSearchParams(Object.entries(raw).flatMap(([k, v]) => (typeof v === "string" && v !== "" ? [[k, v]] : [])));
  const filter = parseAlertFilter(params);
  const now = readRequestTime();
  const runtime = getServingRuntime();
  const alerts = runtime.alerts.list(filter);
  const snapshot = runtime.models.latest()?.snapshot ?? null;
  const events = (await runtime.store.listEvents(now - 7 * 24 * 3600 * 1000, now, 200)).filter((e) => e.kind.startsWith("alert-"));
  const canAct = isAdmin(await headers(), await cookies());
  const firing = alerts.filter((a) => a.state === "firing").length;
  const unseenLosses = alerts.filter((a) => a.state === "resolved" && isAwaitingAttention(a)).length;
  // A loss that resolved only stopped growing: counted apart, never as "resolved", while nobody acknowledged it.
  const losses = unseenLosses === 0 ? "" : ` · ${unseenLosses} loss${unseenLosses === 1 ? "" : "es"} stopped growing, not acknowledged`;
  const subtitle = `${firing} firing${losses} · ${alerts.length - firing - unseenLosses} resolved (of ${alerts.length} matching)`;
  return (
    <>
      <PageHeader title="Alerts" subtitle={subtitle} updatedAt={snapshot?.takenAt ?? null} now={now} />
      <AlertFilters state={filter.state} type={filter.type} flow={filter.flow} flows={snapshot?.flows.map((f) => f.id) ?? []} />
      <div className="grid gap-6 lg:grid-cols-[1fr_20rem]">
        <section aria-label="Alerts" className="space-y-3">
          {alerts.length === 0 ? <p className="text-sm">No alerts match. Gapwatch raises one when a detector finds data loss, a reset, a failed or stalled task, or lag; standing risks are on the Risks page.</p> : null}
          {alerts.map((a) => (
            <AlertCard key={a.id} alert={a} focused={raw.focus === a.id} canAct={canAct} />
          ))}
        </section>
        <Card>
          <CardHeader>
            <CardTitle>Timeline (7 days)</CardTitle>
          </CardHeader>
          <CardContent>
            {events.length === 0 ? <p className="text-sm">Nothing happened yet.</p> : null}
            <ol className="space-y-2 text-xs">
              {events.map((e) => (
                <li key={e.id} className="border-l-2 border-zinc-300 pl-2 dark:border-zinc-700">
                  <time className="block font-mono text-zinc-600 dark:text-zinc-400">{new Date(e.at).toISOString().replace("T", " ").slice(0, 19)}</time>
                  {e.message}
                </li>
              ))}
            </ol>
          </CardContent>
        </Card>
      </div>
    </>
  );
}
