import { Pill, type PillTone } from "@/components/ui/pill";
import type { ReadinessStatus, ReadinessVerdict } from "@/lib/views/readiness";

const verdictLook: Record<ReadinessVerdict, { tone: PillTone; label: string }> = {
  ready: { tone: "ok", label: "Ready to fail over" },
  degraded: { tone: "warn", label: "Degraded" },
  "not-ready": { tone: "crit", label: "Not ready" },
  unknown: { tone: "unknown", label: "Unknown" },
};

const statusLook: Record<ReadinessStatus, { tone: PillTone; label: string }> = {
  ok: { tone: "ok", label: "OK" },
  degraded: { tone: "warn", label: "Degraded" },
  "not-ready": { tone: "crit", label: "Not ready" },
  unknown: { tone: "unknown", label: "Unknown" },
};

/** The failover verdict as a pill (colour plus words). */
export function VerdictPill({ verdict }: { verdict: ReadinessVerdict }) {
  const look = verdictLook[verdict];
  return (
    <Pill tone={look.tone} className="text-sm">
      {look.label}
    </Pill>
  );
}

/** One readiness check's status as a pill. */
export function StatusPill({ status }: { status: ReadinessStatus }) {
  const look = statusLook[status];
  return <Pill tone={look.tone}>{look.label}</Pill>;
}
