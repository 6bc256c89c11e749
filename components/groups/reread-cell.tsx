import { formatCount } from "@/lib/format";
import type { RereadEstimate } from "@/lib/translation";

/**
 * A re-read count: the conservative (high) bound, "a–b" for a bracket; SKIPS in red (certain) or
 * amber (possible) — colour never alone, the text says it too.
 */
export function RereadCell({ value }: { value: RereadEstimate | null }) {
  if (value === null) return <span className="text-zinc-500 dark:text-zinc-400">—</span>;
  if (value.skip === "certain") {
    return <span className="font-semibold text-red-700 dark:text-red-400" data-skip="certain">skips {formatCount(-value.max)}{value.min !== value.max ? `–${formatCount(-value.min)}` : ""}</span>;
  }
  if (value.skip === "possible") {
    return <span className="font-semibold text-amber-700 dark:text-amber-400" data-skip="possible">may skip up to {formatCount(-value.min)}</span>;
  }
  return <span>{value.min === value.max ? formatCount(value.max) : `${formatCount(value.min)}–${formatCount(value.max)}`}</span>;
}
