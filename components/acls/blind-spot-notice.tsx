import type { BlindSpot } from "@/lib/acls/blind-spots";

/** Resources named in full per blind spot; the rest are counted. */
const shownResources = 10;

function nameResources(spot: BlindSpot): string {
  if (spot.resourceType === "cluster") return "the cluster's broker configs";
  const shown = spot.resources.slice(0, shownResources).join(", ");
  const more = spot.resources.length > shownResources ? ` and ${spot.resources.length - shownResources} more` : "";
  return `${spot.resources.length} ${spot.resourceType}${spot.resources.length === 1 ? "" : "s"}: ${shown}${more}`;
}

/**
 * Reads a cluster denied Gapwatch (ACL): visible but quiet (amber, not an alert). Each names what is off, for which
 * topics or groups, and the `kafka-acls` command that grants the missing ACL. Nothing is rendered when there are none.
 */
export function BlindSpotNotice({ spots }: { spots: readonly BlindSpot[] }) {
  if (spots.length === 0) return null;
  return (
    <div className="mb-3 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="blind-spots">
      <p className="font-semibold">Blind spots: reads denied to Gapwatch (missing ACLs)</p>
      <ul className="mt-1 space-y-2">
        {spots.map((s) => (
          <li key={`${s.cluster}|${s.kind}`} data-testid={`blind-spot-${s.cluster}-${s.kind}`}>
            <p>
              <span className="font-mono">{s.cluster}</span>: <strong>off: {s.hides}</strong>, for {nameResources(s)}.
            </p>
            <p className="text-xs">
              {s.apis.join(", ")} denied ({s.error}). Needs {s.acl}; grant it with:
            </p>
            {/* One click selects the whole command; it wraps where it must, not mid-word where it need not. */}
            <code className="mt-0.5 block rounded bg-amber-100 px-2 py-1 font-mono text-xs whitespace-pre-wrap select-all [overflow-wrap:anywhere] dark:bg-amber-900/60">
              {s.fix}
            </code>
          </li>
        ))}
      </ul>
    </div>
  );
}
