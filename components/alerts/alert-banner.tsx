import Link from "next/link";
import { cookies, headers } from "next/headers";
import { isAdmin, mayRead } from "@/lib/auth/session";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { describeAlertState, isAwaitingAttention } from "@/lib/alerts/loss-alerts";
import { getLogger } from "@/lib/logger";
import { linkAlertEvidence } from "@/lib/views/alert-links";
import { AcknowledgeButton } from "./acknowledge-button";

const shown = 5;

/**
 * Firing critical alerts that nobody acknowledged, and losses that stopped growing but nobody
 * acknowledged (loss-alerts.ts), on every page: type, one-line summary, a link to the evidence, and
 * (signed in) Acknowledge. A new alert, or the same one firing anew, brings the banner back.
 */
export async function AlertBanner() {
  let alerts;
  let signedIn = false;
  try {
    // On /signin, where server.requireSignInForReads lets anyone in, alerts are data like any other.
    if (!mayRead(await headers(), await cookies())) return null;
    alerts = getServingRuntime().alerts.list().filter((a) => a.severity === "critical" && isAwaitingAttention(a));
    signedIn = isAdmin(await headers(), await cookies());
  } catch (err) {
    getLogger("ui").warn({ err: err instanceof Error ? err.message : String(err) }, "alert banner unavailable");
    return null;
  }
  if (alerts.length === 0) return null;
  return (
    <section role="alert" aria-label="Critical alerts" data-testid="alert-banner" className="border-b border-red-800 bg-red-700 text-white">
      <ul className="mx-auto max-w-7xl divide-y divide-red-500/60 px-4">
        {alerts.slice(0, shown).map((a) => (
          <li key={a.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm" data-testid={`banner-${a.type}`}>
            <span className="rounded bg-white px-1.5 py-0.5 font-mono text-xs font-bold text-red-800">{a.type}</span>
            {a.state === "resolved" ? <span className="text-xs font-semibold">{describeAlertState(a)}, not acknowledged</span> : null}
            {/* At least 16rem: beside type and state on a desktop, its own line on a phone; Java class names break. */}
            <span className="min-w-0 grow basis-64 max-sm:basis-full [overflow-wrap:anywhere]">{a.summary}</span>
            <Link href={linkAlertEvidence(a)} className="text-xs font-semibold underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-white">
              Evidence
            </Link>
            {signedIn ? <AcknowledgeButton id={a.id} /> : null}
          </li>
        ))}
        {alerts.length > shown ? (
          <li className="py-2 text-sm">
            <Link href="/alerts?state=firing" className="underline">
              and {alerts.length - shown} more critical alerts
            </Link>
          </li>
        ) : null}
      </ul>
    </section>
  );
}
