import { formatAge } from "@/lib/format";
import type { PartialData } from "@/lib/views/flows";

/** "Partial": how many partitions could not be read this cycle, why, and how old their last good data is. */
export function PartialNotice({ partial, partitions }: { partial: PartialData | null; partitions: number }) {
  if (partial === null) return null;
  const age = partial.dataAgeMs === null ? "some were never read" : `last good data ${formatAge(partial.dataAgeMs)} old`;
  return (
    <div className="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="flow-partial">
      <p>
        <strong>Partial:</strong> {partial.unknownPartitions} of {partitions} partitions could not be read this cycle ({age}); no alert fires or resolves on them until they are read again.
      </p>
      <ul className="list-inside list-disc">
        {partial.reasons.map((r) => (
          <li key={r} className="font-mono">
            {r}
          </li>
        ))}
        {partial.moreReasons > 0 ? <li>and {partial.moreReasons} more</li> : null}
      </ul>
    </div>
  );
}
