import type { ReactNode } from "react";
import { cn } from "@/lib/utils";

export const pillTones = {
  ok: "bg-green-100 text-green-900 ring-green-600/30 dark:bg-green-950 dark:text-green-200",
  warn: "bg-amber-100 text-amber-900 ring-amber-600/30 dark:bg-amber-950 dark:text-amber-200",
  crit: "bg-red-100 text-red-900 ring-red-600/30 dark:bg-red-950 dark:text-red-200",
  info: "bg-blue-100 text-blue-900 ring-blue-600/30 dark:bg-blue-950 dark:text-blue-200",
  unknown: "bg-zinc-100 text-zinc-800 ring-zinc-500/30 dark:bg-zinc-800 dark:text-zinc-200",
} as const;
export type PillTone = keyof typeof pillTones;

/** A state pill: colour plus text (never colour alone). */
export function Pill({ tone, children, className }: { tone: PillTone; children: ReactNode; className?: string }) {
  return <span data-slot="pill" data-tone={tone} className={cn("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold ring-1 ring-inset", pillTones[tone], className)}>{children}</span>;
}
