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
      <p className="font-semibold">Blind spots: reads this cluster denied Gapwatch (missing ACLs)</p>
      <ul className="mt-1 space-y-2">
        {spots.map((s) => (
          <li key={`${s.cluster}|${s.kind}`} data-testid={`blind-spot-${s.cluster}-${s.kind}`}>
            <p>
              <span className="font-mono">{s.cluster}</span>: {s.apis.join(", ")} denied ({s.error}) for {nameResources(s)}. Off: {s.hides}.
            </p>
            <p className="text-xs">
              Needs {s.acl}: <code className="font-mono break-all">{s.fix}</code>
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
