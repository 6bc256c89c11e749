import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill } from "@/components/ui/pill";
import { formatAge } from "@/lib/format";
import type { ConnectClusterView } from "@/lib/views/connect";
import { ConnectorBlock } from "./connector-block";

/** One Connect cluster: reachability with data age, then its connectors. */
export function ConnectClusterCard({ cluster, canAct }: { cluster: ConnectClusterView; canAct: boolean }) {
  return (
    <Card data-testid={`connect-${cluster.name}`}>
      <CardHeader>
        <CardTitle>
          Connect cluster <span className="font-mono">{cluster.name}</span>
        </CardTitle>
        <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          {cluster.url !== null ? <span className="font-mono [overflow-wrap:anywhere]">{cluster.url}</span> : null}
          {cluster.source === "internal-topics" ? <Pill tone="info">Read from internal topics</Pill> : null}
          {cluster.internalTopics !== null ? <span className="font-mono [overflow-wrap:anywhere]">{cluster.internalTopics}</span> : null}
          {cluster.failedTasks > 0 ? <Pill tone="crit">{`${cluster.failedTasks} failed task${cluster.failedTasks === 1 ? "" : "s"}`}</Pill> : null}
          {cluster.reachable ? <Pill tone="ok">Reachable</Pill> : <Pill tone="crit">Unreachable</Pill>}
        </div>
      </CardHeader>
      <CardContent>
        {!cluster.reachable ? (
          <p role="alert" className="mb-2 text-sm text-red-800 dark:text-red-300">
            {cluster.error} {cluster.dataAgeMs !== null ? `Showing data from ${formatAge(cluster.dataAgeMs)} ago.` : cluster.source === "internal-topics" ? "Its internal topics were never read to their end yet." : "Connect never answered: check the URL in the config and that the worker runs."}
          </p>
        ) : null}
        {cluster.source === "internal-topics" && cluster.restError !== null ? (
          <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
            States, configs and MM2 positions come from Connect&apos;s internal topics (REST not used: {cluster.restError}).
          </p>
        ) : null}
        {cluster.connectors.length === 0 ? (
          <p className="text-sm">No connectors on this Connect cluster. MM2 flows appear here once its MirrorSource/Checkpoint/Heartbeat connectors are created.</p>
        ) : (
          cluster.connectors.map((c) => (
            <ConnectorBlock key={c.name} cluster={cluster.name} connector={c} canAct={canAct} restartUnavailable={cluster.restartUnavailable} />
          ))
        )}
      </CardContent>
    </Card>
  );
}
