"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";

const choices = [
  { value: "off", label: "Off" },
  { value: "5", label: "5 s" },
  { value: "10", label: "10 s" },
  { value: "30", label: "30 s" },
] as const;

/**
 * Auto-refresh control kept in the URL (`?refresh=5`), so a shared link refreshes the same way.
 * Refreshing re-renders the server components with fresh data (router.refresh), no full reload.
 */
export function AutoRefresh({ defaultSeconds = "10" }: { defaultSeconds?: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const value = params.get("refresh") ?? defaultSeconds;
  useEffect(() => {
    if (value === "off") return;
    const seconds = Number(value);
    if (!Number.isFinite(seconds) || seconds < 1) return;
    const timer = setInterval(() => router.refresh(), seconds * 1000);
    return () => clearInterval(timer);
  }, [value, router]);
  return (
    <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
      Auto-refresh
      <select
        value={value}
        onChange={(e) => {
          const next = new URLSearchParams(params.toString());
          next.set("refresh", e.target.value);
          router.replace(`${pathname}?${next.toString()}`);
        }}
        className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
      >
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
