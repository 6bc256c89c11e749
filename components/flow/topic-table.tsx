"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { Pill } from "@/components/ui/pill";
import { NumTd, Table, Td, Th } from "@/components/ui/table";
import type { FlowTopicRowView } from "@/lib/views/flow-page";
import { LagSparkline } from "./lag-sparkline";

const topChoices = [10, 25, 100, 0] as const;
const inputClass = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-900";

/**
 * The flow's topics with search, sort by lag, top-N and "hide internal topics". Rows arrive
 * already shaped from the server; this component only filters and orders them.
 */
export function TopicTable({ rows, topicHref }: { rows: FlowTopicRowView[]; topicHref: Record<string, string> }) {
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<"lag-desc" | "lag-asc" | "name">("lag-desc");
  const [top, setTop] = useState<number>(25);
  const [hideInternal, setHideInternal] = useState(true);

  const visible = useMemo(() => {
    const q = query.trim().toLowerCase();
    const filtered = rows.filter((r) => (!hideInternal || !r.internal) && (q === "" || r.topic.toLowerCase().includes(q) || r.targetTopic.toLowerCase().includes(q)));
    const ordered = [...filtered].sort((a, b) => (sort === "name" ? a.topic.localeCompare(b.topic) : sort === "lag-desc" ? b.lag - a.lag || a.topic.localeCompare(b.topic) : a.lag - b.lag || a.topic.localeCompare(b.topic)));
    return { shown: top === 0 ? ordered : ordered.slice(0, top), matching: ordered.length };
  }, [rows, query, sort, top, hideInternal]);

  return (
    <div>
      <div className="mb-3 flex flex-wrap items-end gap-3 text-sm">
        <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          Search topics
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="name contains…" className={inputClass} />
        </label>
        <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          Sort
          <select value={sort} onChange={(e) => setSort(e.target.value as typeof sort)} className={inputClass}>
            <option value="lag-desc">Lag, highest first</option>
            <option value="lag-asc">Lag, lowest first</option>
            <option value="name">Name</option>
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          Show
          <select value={top} onChange={(e) => setTop(Number(e.target.value))} className={inputClass}>
            {topChoices.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? "All topics" : `Top ${n}`}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1.5 pb-1 text-sm">
          <input type="checkbox" checked={hideInternal} onChange={(e) => setHideInternal(e.target.checked)} className="size-4 focus-visible:outline-2 focus-visible:outline-blue-500" />
          Hide internal topics (heartbeats, *.internal)
        </label>
        <span className="pb-1 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
          {visible.shown.length} of {visible.matching} matching · {rows.length} topics in this flow
        </span>
      </div>
      {visible.shown.length === 0 ? (
        <p className="rounded border border-dashed border-zinc-300 p-3 text-sm dark:border-zinc-700">
          {rows.length === 0 ? "This flow replicates no topics yet: check the source connector's topics filter." : "No topic matches: clear the search or untick “Hide internal topics”."}
        </p>
      ) : (
        <Table data-testid="topic-table">
          <thead>
            <tr>
              <Th>Topic</Th>
              <Th>Target topic</Th>
              <Th className="text-right">Partitions</Th>
              <Th className="text-right">Source log end (sum)</Th>
              <Th className="text-right">Target log end (sum)</Th>
              <Th className="text-right" aria-sort={sort === "name" ? "none" : sort === "lag-desc" ? "descending" : "ascending"}>
                Lag (records)
              </Th>
              <Th>Lag over range</Th>
            </tr>
          </thead>
          <tbody>
            {visible.shown.map((r) => (
              <tr key={r.topic} data-testid={`topic-row-${r.topic}`} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                <Td className="font-mono">
                  <Link href={topicHref[r.topic] ?? "#"} className="rounded-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-400">
                    {r.topic}
                  </Link>
                  {r.internal ? <Pill tone="unknown" className="ml-2">internal</Pill> : null}
                </Td>
                <Td className="font-mono text-zinc-600 dark:text-zinc-400">{r.targetTopic}</Td>
                <NumTd>
                  {r.partitions}
                  {r.unknownPartitions > 0 ? <span className="block text-xs font-normal text-amber-700 dark:text-amber-300">{r.unknownPartitions} partial</span> : null}
                </NumTd>
                <NumTd>{r.sourceLogEnd}</NumTd>
                <NumTd>{r.targetLogEnd}</NumTd>
                <NumTd className={r.lag > 0 ? "font-semibold text-red-700 dark:text-red-400" : undefined}>
                  {r.lagText}
                  {r.unknownPositions > 0 ? <span className="block text-xs font-normal text-amber-700 dark:text-amber-300">{r.unknownPositions} unknown</span> : null}
                </NumTd>
                <Td>
                  <LagSparkline lags={r.spark} label={r.topic} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
