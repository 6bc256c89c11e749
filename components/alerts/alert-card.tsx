import Link from "next/link";
import { Pill, type PillTone } from "@/components/ui/pill";
import { describeAlertState, isAcknowledgeable, isAwaitingAttention, isLossAlert, stoppedGrowingMeaning } from "@/lib/alerts/loss-alerts";
import type { AlertRecord } from "@/lib/alerts/types";
import { linkAlertEvidence } from "@/lib/views/alert-links";
import { AcknowledgeButton } from "./acknowledge-button";

const tones: Record<string, PillTone> = { critical: "crit", warning: "warn", info: "info" };

const time = (ms: number | null) => (ms === null ? "—" : `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`);

/** One alert with its evidence (times such as `seenAt` in epoch ms shown as UTC), times and acknowledgement. */
export function AlertCard({ alert, focused, canAct }: { alert: AlertRecord; focused: boolean; canAct: boolean }) {
  const scope = [alert.flow, alert.cluster && `cluster ${alert.cluster}`, alert.topic && `${alert.topic}${alert.partition !== null ? `/${alert.partition}` : ""}`, alert.group && `group ${alert.group}`].filter(Boolean).join(" · ");
  return (
    <article
      id={`alert-${alert.id}`}
      data-testid={`alert-${alert.type}`}
      className={`rounded-lg border bg-white p-3 shadow-sm dark:bg-zinc-900 ${focused ? "border-blue-500 ring-2 ring-blue-500" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <header className="flex flex-wrap items-center gap-2">
        <Pill tone={tones[alert.severity] ?? "unknown"}>{alert.severity}</Pill>
        <span className="font-mono text-sm font-semibold">{alert.type}</span>
        <Pill tone={isAwaitingAttention(alert) || alert.state === "firing" ? "crit" : "ok"}>{describeAlertState(alert)}</Pill>
        {alert.acknowledged ? <Pill tone="info">acknowledged by {alert.acknowledged.by}</Pill> : null}
        <span className="text-xs text-zinc-600 dark:text-zinc-400">{scope}</span>
        <span className="ml-auto flex items-center gap-2">
          {canAct && isAcknowledgeable(alert) ? <AcknowledgeButton id={alert.id} /> : null}
          {alert.topic && alert.partition !== null ? (
            <Link href={linkAlertEvidence(alert)} className="text-xs underline">
              Partition chart
            </Link>
          ) : null}
        </span>
      </header>
      <p className="mt-2 text-sm">{alert.summary}</p>
      {alert.state === "resolved" && isLossAlert(alert) ? (
        <p className="mt-1 text-xs font-semibold" data-testid="alert-loss-meaning">
          {stoppedGrowingMeaning}
          {alert.acknowledged === null ? " — stays open until acknowledged" : ""}
        </p>
      ) : null}
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-0.5 text-xs">
        {Object.entries(alert.evidence).map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-zinc-600 dark:text-zinc-400">{k}</dt>
            <dd className="font-mono [overflow-wrap:anywhere]">{v === null ? "—" : typeof v === "number" && k.endsWith("At") ? time(v) : String(v)}</dd>
          </div>
        ))}
        <dt className="text-zinc-600 dark:text-zinc-400">first seen</dt>
        <dd className="font-mono">{time(alert.firstSeen)}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">last seen</dt>
        <dd className="font-mono">{time(alert.lastSeen)}</dd>
        {alert.resolvedAt ? (
          <>
            <dt className="text-zinc-600 dark:text-zinc-400">{isLossAlert(alert) ? "stopped growing" : "resolved"}</dt>
            <dd className="font-mono">{time(alert.resolvedAt)}</dd>
          </>
        ) : null}
      </dl>
    </article>
  );
}
