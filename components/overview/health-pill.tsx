import { Pill } from "@/components/ui/pill";
import type { FlowHealth } from "@/lib/views/flow-health";

/** A flow's replication health: the pill, and the configured limit it crossed (in the tooltip and for screen readers). */
export function HealthPill({ health }: { health: FlowHealth }) {
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="flow-health" title={health.reason ?? undefined}>
      <span className="text-xs text-zinc-600 dark:text-zinc-400">Replication</span>
      <Pill tone={health.tone}>{health.label}</Pill>
      {health.reason ? <span className="sr-only">: {health.reason}</span> : null}
    </span>
  );
}
