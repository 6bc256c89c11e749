import { PageHeader } from "@/components/layout/page-header";
import { ClusterCard } from "@/components/overview/cluster-card";
import { FlowCard } from "@/components/overview/flow-card";
import { deriveBlindSpots } from "@/lib/acls/blind-spots";
import { listClusterViews } from "@/lib/views/clusters";
import { readPrincipals } from "@/lib/views/health";
import { readFlowHealth } from "@/lib/views/flow-health";
import { listFlowSummaries } from "@/lib/views/flows";
import { readRequestTime } from "@/lib/views/clock";
import { ageFlowHealth, readDataAge } from "@/lib/views/data-age";
import { listServedReadiness } from "@/lib/views/readiness-data";
import { readLatestModel } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

export default function OverviewPage() {
  const model = readLatestModel();
  const now = readRequestTime();
  if (!model) {
    return (
      <>
        <PageHeader title="Overview" updatedAt={null} now={now} />
        <p className="text-sm">Gapwatch is reading the clusters for the first time; this page fills in within one poll interval.</p>
      </>
    );
  }
  const snapshot = model.snapshot;
  const flows = listFlowSummaries(snapshot);
  const clusters = listClusterViews(snapshot, now);
  const blindSpots = deriveBlindSpots(snapshot, readPrincipals());
  const age = readDataAge(model, now);
  const readiness = new Map(listServedReadiness(model, now).map((r) => [r.flow, r]));
  return (
    <>
      <PageHeader title="Overview" subtitle={`${flows.length} MirrorMaker 2 flow${flows.length === 1 ? "" : "s"} · ${clusters.length} clusters`} updatedAt={snapshot.takenAt} now={now} />
      <section aria-labelledby="flows-heading" className="mb-6">
        <h2 id="flows-heading" className="mb-2 text-lg font-semibold">
          Replication flows
        </h2>
        {flows.length === 0 ? (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
            No MirrorMaker 2 connectors found on {snapshot.connect.map((c) => (c.url !== null ? `Connect at ${c.url}` : `Connect ${c.name} (internal topics)`)).join(", ") || "any configured Connect cluster"}. For dedicated-mode MM2, Gapwatch reads
            mm2-offsets.&lt;source&gt;.internal and the connector configs in mm2-configs.&lt;source&gt;.internal on the target cluster
            (a direction whose MirrorSourceConnector is disabled is no flow).
          </p>
        ) : (
          <div className="grid grid-cols-1 gap-4">{flows.map((f, i) => <FlowCard key={f.id} flow={f} health={ageFlowHealth(readFlowHealth(model, snapshot.flows[i]!, f), age)} readiness={readiness.get(f.id)!} />)}</div>
        )}
      </section>
      <section aria-labelledby="clusters-heading">
        <h2 id="clusters-heading" className="mb-2 text-lg font-semibold">
          Clusters
        </h2>
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">{clusters.map((c) => <ClusterCard key={c.alias} cluster={c} blindSpots={blindSpots.filter((b) => b.cluster === c.alias)} />)}</div>
      </section>
    </>
  );
}
