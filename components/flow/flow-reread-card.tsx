import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TextLink } from "@/components/ui/text-link";
import { formatAge } from "@/lib/format";
import type { FlowRereadSeries } from "@/lib/views/flow-rereads";
import { flowPath } from "@/lib/views/flow-page";
import { FlowRereadChart } from "./flow-reread-chart";

/** The flow's translation accuracy over the selected range: re-reads on failover summed over its groups. */
export function FlowRereadCard({ flowId, series, rangeLabel, spanMs }: { flowId: string; series: FlowRereadSeries | null; rangeLabel: string; spanMs: number }) {
  return (
    <Card className="mb-4" data-testid="flow-rereads">
      <CardHeader>
        <CardTitle>Re-reads on failover, all groups</CardTitle>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          Last {rangeLabel}
          {series ? `, highest per ${formatAge(series.bucketMs)}` : ""}
          {series && series.groupsSummed < series.groups ? ` · the ${series.groupsSummed} of ${series.groups} groups replaying most now` : ""}
        </span>
      </CardHeader>
      <CardContent>
        {series === null ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">The offset translation of this flow is not available this cycle.</p>
        ) : series.groups === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">MM2 checkpoints no consumer group on this flow: nothing would be re-read.</p>
        ) : (
          <FlowRereadChart points={series.points} spanMs={spanMs} />
        )}
        <p className="mt-2 text-xs">
          <TextLink href={flowPath(flowId, "groups")} prefetch={false}>
            Per group, with failover plans
          </TextLink>
        </p>
      </CardContent>
    </Card>
  );
}
