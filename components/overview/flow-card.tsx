import Link from "next/link";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill, type PillTone } from "@/components/ui/pill";
import { formatCount, formatLatency } from "@/lib/format";
import type { FlowSummary } from "@/lib/views/flows";
import { encodeFlowId } from "@/lib/views/params";
import { Stat } from "@/components/ui/stat";
import { ReadinessLine } from "@/components/readiness/readiness-line";
import type { FlowReadiness } from "@/lib/views/readiness";
import { PartialNotice } from "./partial-notice";

/**
 * Flow health, in order: any FAILED task → failed; no task RUNNING (where the states are known:
 * Connect mode, or dedicated mode's status topic read) or a dedicated MM2's source connector not
 * RUNNING → not running; some partitions' data could not be read this cycle → partial (never
 * healthy: nothing is judged on them); errors reading MM2, or partitions whose position is unknown
 * → degraded; lag above 10,000 records or heartbeats older than 60 s → lagging; otherwise healthy.
 */
export function rateFlowHealth(f: FlowSummary): { tone: PillTone; label: string } {
  if ((f.tasks.FAILED ?? 0) > 0) return { tone: "crit", label: "Task failed" };
  if (f.sourceNotRunning || ((f.tasks.RUNNING ?? 0) === 0 && f.taskStatesKnown)) return { tone: "crit", label: "Not running" };
  if (f.partial !== null) return { tone: "warn", label: "Partial" };
  if (f.errors.length > 0 || f.unknownPositions > 0) return { tone: "warn", label: "Degraded" };
  if (f.lag > 10_000n || (f.heartbeatLatencyMs ?? 0) > 60_000) return { tone: "warn", label: "Lagging" };
  return { tone: "ok", label: "Healthy" };
}

export function FlowCard({ flow, readiness }: { flow: FlowSummary; readiness: FlowReadiness }) {
  const health = rateFlowHealth(flow);
  return (
    <Card data-testid={`flow-${flow.id}`}>
      <CardHeader>
        <CardTitle>
          <Link href={`/flows/${encodeFlowId(flow.id)}`} className="hover:underline">
            {flow.source} → {flow.target}
          </Link>
        </CardTitle>
        <Pill tone={health.tone}>{health.label}</Pill>
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
