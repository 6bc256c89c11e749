import { getLogger } from "@/lib/logger";
import { readRequestTime } from "@/lib/views/clock";
import { describeStalePages, readReadiness } from "@/lib/views/probes";

/**
 * On every page while the data it shows is older than 3 poll intervals (a stuck or stopped collector, or a store this
 * server cannot read): how old, what that hides, what to check. Rendered with the page, so its age is the render's.
 */
export function StaleDataBanner() {
  let text: string | null;
  try {
    text = describeStalePages(readReadiness(readRequestTime()));
  } catch (err) {
    getLogger("ui").warn({ err: err instanceof Error ? err.message : String(err) }, "stale data banner unavailable");
    return null;
  }
  if (text === null) return null;
  return (
    <section role="alert" aria-label="Stale data" data-testid="stale-data-banner" className="border-b border-amber-700 bg-amber-500 text-zinc-950">
      <p className="mx-auto max-w-7xl px-4 py-2 text-sm font-semibold">{text}</p>
    </section>
  );
}
