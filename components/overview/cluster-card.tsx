import { BlindSpotNotice } from "@/components/acls/blind-spot-notice";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { BreakableName } from "@/components/ui/breakable-name";
import { Pill } from "@/components/ui/pill";
import { NumTd, Table, Td, Th } from "@/components/ui/table";
import { formatAge, formatCount } from "@/lib/format";
import type { BlindSpot } from "@/lib/acls/blind-spots";
import type { ClusterView } from "@/lib/views/clusters";

/** Narrower cells on a phone, so the four columns fit the card at 390 px (long topic names wrap after `.`, `-` or `_`). */
const cell = "max-sm:px-1.5";

/** One cluster: reachability with data age, its blind spots, brokers, and its topics' partition counts and offsets. */
export function ClusterCard({ cluster, blindSpots = [] }: { cluster: ClusterView; blindSpots?: readonly BlindSpot[] }) {
  const topics = cluster.topics.filter((t) => !t.name.startsWith("__"));
  return (
    <Card data-testid={`cluster-${cluster.alias}`}>
      <CardHeader>
        <CardTitle>
          Cluster <span className="font-mono">{cluster.alias}</span>
        </CardTitle>
        <div className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          <span className="font-mono">{cluster.bootstrap.join(", ")}</span>
          {cluster.reachable ? <Pill tone="ok">Reachable</Pill> : <Pill tone="crit">Unreachable</Pill>}
        </div>
      </CardHeader>
      <CardContent>
        {!cluster.reachable ? (
          <p role="alert" className="mb-2 text-sm text-red-800 dark:text-red-300">
            {cluster.error} {cluster.dataAgeMs !== null ? `Showing data from ${formatAge(cluster.dataAgeMs)} ago.` : "No data was ever read from this cluster."}
          </p>
        ) : cluster.error !== null ? (
          <p className="mb-2 text-sm text-amber-800 dark:text-amber-300" data-testid="cluster-partial">
            <strong>Partial:</strong> {cluster.unknownPartitions} partitions and {cluster.unknownGroups} consumer groups could not be read this cycle ({cluster.error}); nothing is judged on them until
            they are read again.
          </p>
        ) : null}
        <BlindSpotNotice spots={blindSpots} />
        <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
          {cluster.brokers} broker{cluster.brokers === 1 ? "" : "s"} · {topics.length} topic{topics.length === 1 ? "" : "s"} · {cluster.groups} consumer group{cluster.groups === 1 ? "" : "s"}
          {cluster.underReplicated ? ` · ${cluster.underReplicated} under-replicated` : ""}
          {cluster.offline ? ` · ${cluster.offline} offline partitions` : ""}
        </p>
        <Table>
          <thead>
            <tr>
              <Th className={cell}>Topic</Th>
              <Th className={`text-right ${cell}`}>Partitions</Th>
              <Th className={`text-right ${cell}`}>Log start (sum)</Th>
              <Th className={`text-right ${cell}`}>Log end (sum)</Th>
            </tr>
          </thead>
          <tbody>
            {topics.map((t) => (
              <tr key={t.name} data-testid={`topic-${cluster.alias}-${t.name}`}>
                <Td className={`font-mono max-sm:[overflow-wrap:anywhere] ${cell}`}>
                  <BreakableName name={t.name} />
                </Td>
                <NumTd className={cell}>{t.partitions}</NumTd>
                <NumTd className={cell}>{formatCount(t.logStartTotal)}</NumTd>
                <NumTd className={cell}>{formatCount(t.logEndTotal)}</NumTd>
              </tr>
            ))}
          </tbody>
        </Table>
      </CardContent>
    </Card>
  );
}
