import { Pill } from "@/components/ui/pill";
import type { UntranslatableReasonName } from "@/lib/translation";

const reasonLabels: Record<UntranslatableReasonName, string> = {
  "no-sync": "no offset sync yet",
  "older-than-oldest-sync": "older than MM2's oldest sync (−1)",
  "store-not-loaded": "offset syncs not loaded",
  "not-replicated": "not replicated",
  "offset-syncs-disabled": "translation off by MM2's configuration",
};

/** Human label of an untranslatable reason. */
export function describeReason(reason: UntranslatableReasonName): string {
  return reasonLabels[reason];
}

/** Partitions MM2 cannot translate, with the reason (the detail on hover and for screen readers). */
export function UntranslatableList({ items }: { items: { topic: string; partition: number; reason: UntranslatableReasonName; detail: string }[] }) {
  if (items.length === 0) return <span className="text-zinc-500 dark:text-zinc-400">none</span>;
  return (
    <ul className="space-y-0.5">
      {items.slice(0, 6).map((i) => (
        <li key={`${i.topic}/${i.partition}`} title={i.detail} className="flex flex-wrap items-center gap-1">
          <span className="font-mono text-xs">
            {i.topic}/{i.partition}
          </span>
          <Pill tone={i.reason === "older-than-oldest-sync" ? "crit" : "warn"}>{reasonLabels[i.reason]}</Pill>
        </li>
      ))}
      {items.length > 6 ? <li className="text-xs text-zinc-600 dark:text-zinc-400">and {items.length - 6} more</li> : null}
    </ul>
  );
}
