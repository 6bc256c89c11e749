import type { FailoverModeName } from "@/lib/translation";
import { failoverCsvPath } from "@/lib/views/groups";
import { cn } from "@/lib/utils";

const labels: Record<FailoverModeName, string> = { mm2: "MM2 plan (CSV)", precise: "Precise plan (CSV)" };

/**
 * Download links of a group's two failover CSVs (kafka-consumer-groups --reset-offsets --from-file).
 * A plan known to be empty (`rows[mode] === 0`) is shown as text: Kafka cannot parse an empty file.
 */
export function FailoverDownloads({ flow, group, rows, className }: { flow: string; group: string; rows?: Partial<Record<FailoverModeName, number>>; className?: string }) {
  return (
    <span className={cn("inline-flex flex-wrap gap-2", className)}>
      {(["mm2", "precise"] as const).map((mode) =>
        rows?.[mode] === 0 ? (
          <span key={mode} className="px-2 py-0.5 text-xs text-zinc-600 dark:text-zinc-400" data-testid={`no-plan-${mode}`}>
            {labels[mode]}: no partition has an offset yet
          </span>
        ) : (
          <a
            key={mode}
            href={failoverCsvPath(flow, group, mode)}
            download
            data-testid={`download-${mode}`}
            className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:hover:bg-zinc-800"
          >
            {labels[mode]}
          </a>
        ),
      )}
    </span>
  );
}
