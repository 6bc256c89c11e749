import Link from "next/link";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount, formatLatency } from "@/lib/format";
import type { FlowHealth } from "@/lib/views/flow-health";
import type { FlowSummary } from "@/lib/views/flows";
import { encodeFlowId } from "@/lib/views/params";
import { Stat } from "@/components/ui/stat";
import { ReadinessLine } from "@/components/readiness/readiness-line";
import type { FlowReadiness } from "@/lib/views/readiness";
import { HealthPill } from "./health-pill";
import { PartialNotice } from "./partial-notice";

/** One flow on the overview: health pill (lib/views/flow-health.ts), readiness, lag, heartbeats, tasks. */
export function FlowCard({ flow, health, readiness }: { flow: FlowSummary; health: FlowHealth; readiness: FlowReadiness }) {
  return (
    <Card data-testid={`flow-${flow.id}`}>
      <CardHeader>
        <CardTitle>
          <Link href={`/flows/${encodeFlowId(flow.id)}`} className="hover:underline">
            {flow.source} → {flow.target}
          </Link>
        </CardTitle>
        <HealthPill health={health} />
      </CardHeader>
      <CardContent>
        <ReadinessLine readiness={readiness} href={`/flows/${encodeFlowId(flow.id)}#readiness`} />
        <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid="flow-mode">
          {flow.mode}
        </p>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
          <Stat label="Lag (records)" value={formatCount(flow.lag)} />
          <Stat label="Heartbeat latency" value={formatLatency(flow.heartbeatLatencyMs)} />
          <Stat label="Topics / partitions" value={`${flow.topics} / ${flow.partitions}`} />
          <Stat label="Tasks" value={Object.entries(flow.tasks).map(([s, n]) => `${n} ${s}`).join(", ") || "none"} />
        </dl>
        <PartialNotice partial={flow.partial} partitions={flow.partitions} />
        {flow.unknownPositions > 0 ? <p className="mt-2 text-xs text-amber-800 dark:text-amber-300">{flow.unknownPositions} partitions have no MM2 position yet (nothing replicated or Connect did not answer).</p> : null}
        {flow.errors.map((e) => (
          <p key={e} className="mt-2 text-xs text-red-800 dark:text-red-300">
            {e}
          </p>
        ))}
      </CardContent>
    </Card>
  );
}
