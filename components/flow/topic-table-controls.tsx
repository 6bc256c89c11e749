"use client";

import { useRouter } from "next/navigation";
import { useEffect, useOptimistic, useRef, useState, useTransition, type ReactNode } from "react";
import { describeTopicTableParams, topicTableSizes, type TopicTableSort, type TopicTableView } from "@/lib/views/flow-topic-table";

const inputClass = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-900";
/** Typing waits this long for the next key before the page asks the server for the matching rows. */
const searchDelayMs = 250;

/**
 * Search, sort, top-N and "hide internal topics" of the flow page's topic table. The server picks the rows
 * (flow-topic-table.ts): a change replaces the URL's parameters (kept beside `range` and `refresh`) and the page
 * re-renders with them, so the table, a shared link and the auto-refresh agree.
 */
export function TopicTableControls({ view, children }: { view: TopicTableView; children: ReactNode }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // The choice shows at once (a checkbox that springs back until the server answers reads as broken).
  const [shown, setShown] = useOptimistic(view);
  const [query, setQuery] = useState(view.q);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current !== null) clearTimeout(timer.current);
  }, []);

  const show = (next: TopicTableView) => {
    const params = new URLSearchParams(window.location.search);
    for (const [key, value] of Object.entries(describeTopicTableParams(next))) {
      if (value === null) params.delete(key);
      else params.set(key, value);
    }
    const search = params.toString();
    startTransition(() => {
      setShown(next);
      router.replace(`${window.location.pathname}${search === "" ? "" : `?${search}`}`, { scroll: false });
    });
  };
  const search = (text: string) => {
    setQuery(text);
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => show({ ...shown, q: text.trim() }), searchDelayMs);
  };

  return (
    <div className="mb-3 flex flex-wrap items-end gap-3 text-sm" aria-busy={pending}>
      <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        Search topics
        <input type="search" value={query} onChange={(e) => search(e.target.value)} placeholder="name contains…" className={inputClass} />
      </label>
      <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        Sort
        <select value={shown.sort} onChange={(e) => show({ ...shown, q: query.trim(), sort: e.target.value as TopicTableSort })} className={inputClass}>
          <option value="lag-desc">Lag, highest first</option>
          <option value="lag-asc">Lag, lowest first</option>
          <option value="name">Name</option>
        </select>
      </label>
      <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        Show
        <select value={shown.show} onChange={(e) => show({ ...shown, q: query.trim(), show: Number(e.target.value) as TopicTableView["show"] })} className={inputClass}>
          {topicTableSizes.map((n) => (
            <option key={n} value={n}>
              {n === 0 ? "All topics" : `Top ${n}`}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1.5 pb-1 text-sm">
        <input
          type="checkbox"
          checked={shown.hideInternal}
          onChange={(e) => show({ ...shown, q: query.trim(), hideInternal: e.target.checked })}
          className="size-4 focus-visible:outline-2 focus-visible:outline-blue-500"
        />
        Hide internal topics (heartbeats, *.internal)
      </label>
      <span className="pb-1 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
        {pending ? "updating… · " : null}
        {children}
      </span>
    </div>
  );
}
