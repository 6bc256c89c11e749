import { HealthPill } from "@/components/overview/health-pill";
import { PartialNotice } from "@/components/overview/partial-notice";
import { FlowConfigNotes } from "./flow-config-notes";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill } from "@/components/ui/pill";
import { TextLink } from "@/components/ui/text-link";
import { formatCount, formatLatency } from "@/lib/format";
import type { FlowHealth } from "@/lib/views/flow-health";
import type { FlowSummary } from "@/lib/views/flows";
import { flowPath } from "@/lib/views/flow-page";
import { Stat } from "@/components/ui/stat";

/** The flow's health at a glance: health pill, lag, heartbeat latency, tasks, connectors, and where to go next. */
export function FlowSummaryCard({ flow, health }: { flow: FlowSummary; health: FlowHealth }) {
  const tasks = Object.entries(flow.tasks);
  return (
    <Card data-testid="flow-summary" className="mb-4">
      <CardHeader>
        <CardTitle>Summary</CardTitle>
        <HealthPill health={health} />
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
          <Stat label="Lag (records)" value={formatCount(flow.lag)} />
          <Stat label="Heartbeat latency" value={formatLatency(flow.heartbeatLatencyMs)} />
          <Stat label="Topics / partitions" value={`${flow.topics} / ${flow.partitions}`} />
          <div>
            <dt className="text-xs text-zinc-600 dark:text-zinc-400">Tasks</dt>
            <dd className="flex flex-wrap gap-1 pt-0.5">
              {tasks.length === 0 ? <span className="font-mono">none</span> : tasks.map(([state, n]) => <Pill key={state} tone={state === "RUNNING" ? "ok" : state === "FAILED" ? "crit" : state === "PAUSED" ? "warn" : "info"}>{`${n} ${state}`}</Pill>)}
            </dd>
          </div>
        </dl>
        <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">
          <span data-testid="flow-mode">{flow.mode}</span>
          {flow.discoveredFrom === "connect" ? null : " · found from its topics; task states from its status topic"}
          {" · connectors: "}
          <span className="font-mono">{flow.connectorNames.join(", ") || "none"}</span>
        </p>
        <FlowConfigNotes warnings={flow.warnings} excludedTopics={flow.excludedTopics} settingNotes={flow.settingNotes} />
        <PartialNotice partial={flow.partial} partitions={flow.partitions} />
        {flow.unknownPositions > 0 ? <p className="mt-2 text-xs text-amber-800 dark:text-amber-300">{flow.unknownPositions} partitions have no MM2 position yet (nothing replicated, or Connect did not answer).</p> : null}
        {flow.errors.map((e) => (
          <p key={e} role="alert" className="mt-2 text-xs text-red-800 dark:text-red-300">
            {e}
          </p>
        ))}
        <nav aria-label="Flow pages" className="mt-3 flex flex-wrap gap-4 text-sm">
          <TextLink href="/connect">Connectors and tasks (Connect page)</TextLink>
          <TextLink href={flowPath(flow.id, "groups")} prefetch={false}>
            Consumer groups &amp; failover
          </TextLink>
        </nav>
      </CardContent>
    </Card>
  );
}
