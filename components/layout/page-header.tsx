import type { ReactNode } from "react";
import { Suspense } from "react";
import { formatAge } from "@/lib/format";
import { AutoRefresh } from "./auto-refresh";

/** Page title with "last updated" (and how old that is) and the auto-refresh control. */
export function PageHeader({ title, subtitle, updatedAt, now, children }: { title: string; subtitle?: ReactNode; updatedAt: number | null; now: number; children?: ReactNode }) {
  const age = updatedAt === null ? null : now - updatedAt;
  const stale = age !== null && age > 60_000;
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
        {subtitle ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{subtitle}</p> : null}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        {children}
        <span className={stale ? "text-xs font-semibold text-red-700 dark:text-red-400" : "text-xs text-zinc-600 dark:text-zinc-400"} data-testid="last-updated">
          {updatedAt === null ? "No data yet" : `Last updated ${new Date(updatedAt).toISOString().slice(11, 19)} UTC (${formatAge(age!)} ago)${stale ? " — STALE" : ""}`}
        </span>
        <Suspense fallback={null}>
          <AutoRefresh />
        </Suspense>
      </div>
    </div>
  );
}
