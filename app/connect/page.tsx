import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { ConnectClusterCard } from "@/components/connect/connect-cluster-card";
import { NoDataYet } from "@/components/flow/no-data-yet";
import { PageHeader } from "@/components/layout/page-header";
import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { isAdmin } from "@/lib/auth/session";
import { readRequestTime } from "@/lib/views/clock";
import { listConnectClusterViews } from "@/lib/views/connect";
import { readLatestSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connect" };

/** Kafka Connect: every connector and task with its state and root cause; admins can restart failed tasks. */
export default async function ConnectPage() {
  const now = readRequestTime();
  const snapshot = readLatestSnapshot();
  const canAct = isAdmin(await headers(), await cookies(), now);
  if (!snapshot) {
    return (
      <>
        <PageHeader title="Kafka Connect" updatedAt={null} now={now} />
        <NoDataYet />
      </>
    );
  }
  const clusters = listConnectClusterViews(snapshot, now);
  const failed = clusters.reduce((n, c) => n + c.failedTasks, 0);
  // Clusters read from their internal topics only have no REST API Gapwatch could ask for a restart.
  const restartable = clusters.some((c) => c.restartUnavailable === null);
  const subtitle = (
    <>
      {clusters.length} Connect cluster{clusters.length === 1 ? "" : "s"} · {failed === 0 ? "no failed tasks" : `${failed} failed task${failed === 1 ? "" : "s"}`} ·{" "}
      {!restartable ? "restart tasks where MM2 runs (no Connect REST API configured)" : canAct ? "signed in: failed tasks can be restarted" : <><TextLink href="/signin?next=/connect">sign in</TextLink> to restart failed tasks</>}
    </>
  );
  return (
    <>
      <PageHeader title="Kafka Connect" subtitle={subtitle} updatedAt={snapshot.takenAt} now={now} />
      {clusters.length === 0 ? (
        <EmptyState title="No Connect cluster configured">
          <p>Add a <code>connect:</code> entry (name and REST URL) to the Gapwatch config to see MM2&apos;s connectors and tasks here.</p>
        </EmptyState>
      ) : (
        <div className="grid grid-cols-1 gap-4">{clusters.map((c) => <ConnectClusterCard key={c.name} cluster={c} canAct={canAct} />)}</div>
      )}
    </>
  );
}
