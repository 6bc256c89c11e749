"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { cn } from "@/lib/utils";
import { defaultTimeRange, isTimeRangeKey, timeRanges, type TimeRangeKey } from "@/lib/views/time-range";

/**
 * Time-range picker kept in the URL (`?range=1h`) beside the auto-refresh control, so a shared
 * link shows the same window. A group of toggle buttons (aria-pressed) for keyboard and screen readers.
 */
export function TimeRangePicker() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const raw = params.get("range");
  const current: TimeRangeKey = raw !== null && isTimeRangeKey(raw) ? raw : defaultTimeRange;
  const choose = (key: TimeRangeKey) => {
    const next = new URLSearchParams(params.toString());
    next.set("range", key);
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  return (
    <div role="group" aria-label="Time range" className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
      <span>Range</span>
      <div className="inline-flex overflow-hidden rounded border border-zinc-300 dark:border-zinc-700">
        {(Object.keys(timeRanges) as TimeRangeKey[]).map((key) => (
          <button
            key={key}
            type="button"
            aria-pressed={key === current}
            onClick={() => choose(key)}
            className={cn(
              "px-2 py-0.5 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-500",
              key === current ? "bg-zinc-800 text-white dark:bg-zinc-200 dark:text-zinc-900" : "bg-white hover:bg-zinc-100 dark:bg-zinc-900 dark:hover:bg-zinc-800",
            )}
          >
            {timeRanges[key].label}
          </button>
        ))}
      </div>
    </div>
  );
}
