import type { ComponentProps } from "react";
import { cn } from "@/lib/utils";

const tones = {
  info: "border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900",
  warn: "border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950",
  crit: "border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950",
} as const;

/** A "nothing here" or "not found" panel: what happened (title) and what to do (children). */
export function EmptyState({ title, tone = "info", className, children, ...props }: ComponentProps<"div"> & { title: string; tone?: keyof typeof tones }) {
  return (
    <div data-slot="empty-state" role={tone === "info" ? "status" : "alert"} className={cn("rounded-lg border p-4 text-sm", tones[tone], className)} {...props}>
      <h2 className="mb-1 font-semibold">{title}</h2>
      <div className="space-y-2 text-zinc-700 dark:text-zinc-300">{children}</div>
    </div>
  );
}
