"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent, type UIEvent } from "react";
import { cn } from "@/lib/utils";
import type { PartitionRowView } from "@/lib/views/topic";
import { generateSyntheticPartitionRows } from "@/lib/views/topic-synthetic";
import { computeWindow } from "./virtual-window";

const rowHeight = 44;
const headerHeight = 40;
const maxBodyHeight = 600;
const columns = "grid grid-cols-[4.5rem_repeat(5,minmax(6.5rem,1fr))_minmax(9rem,1.2fr)_3.5rem_3.5rem_6rem] items-center gap-x-3 px-3";
const headers = ["Partition", "Source log start", "Source log end", "MM2 position", "Target log end", "Lag", "Sync up → down", "Leader", "Epoch", "ISR / replicas"];

/**
 * The topic's partitions, virtualized: only the rows in view (plus a few) are in the DOM, each
 * absolutely placed at `index × rowHeight` inside a spacer as tall as all rows, so thousands of
 * partitions scroll smoothly. With `synthetic > 0` it shows generated rows (browser tests).
 */
export function PartitionTable({ rows, synthetic, hrefBase, hrefQuery }: { rows: readonly PartitionRowView[]; synthetic: number; hrefBase: string; hrefQuery: string }) {
  const data = useMemo(() => (synthetic > 0 ? generateSyntheticPartitionRows(synthetic) : rows), [rows, synthetic]);
  const [scrollTop, setScrollTop] = useState(0);
  const frame = useRef<number | null>(null);
  // A scroll made before React hydrated this table fired no onScroll: start from where the
  // element already is, or the rows in view stay blank until the next scroll (seen in CI).
  const scroller = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const top = scroller.current?.scrollTop ?? 0;
    if (top !== 0) setScrollTop(top);
  }, []);
  const onScroll = useCallback((e: UIEvent<HTMLDivElement>) => {
    const top = e.currentTarget.scrollTop;
    if (frame.current !== null) cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      setScrollTop(top);
    });
  }, []);
  // Rows hold plain <a> links (a next/link per row costs too much when 30 rows remount per
  // frame); one delegated handler turns plain left clicks into client-side navigation.
  const router = useRouter();
  const onClick = useCallback(
    (e: MouseEvent<HTMLDivElement>) => {
      const link = (e.target as HTMLElement).closest("a[data-row-link]");
      if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      router.push(link.getAttribute("href") ?? "");
    },
    [router],
  );
  const bodyHeight = Math.min(maxBodyHeight, Math.max(1, data.length) * rowHeight);
  const { start, end } = computeWindow(scrollTop, bodyHeight, rowHeight, data.length);

  if (data.length === 0) return <p className="rounded border border-dashed border-zinc-300 p-3 text-sm dark:border-zinc-700">No partitions of this topic are replicated yet.</p>;
  return (
    <div role="table" aria-label="Partitions" aria-rowcount={data.length + 1} data-testid="partition-table" data-total-rows={data.length}>
      <p className="mb-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="window-info" aria-live="off">
        {data.length.toLocaleString("en-US")} partitions · rendering rows {start}–{Math.max(start, end - 1)} (scroll the table; each row opens the partition)
      </p>
      <div
        ref={scroller}
        onScroll={onScroll}
        tabIndex={0}
        aria-label="Partition rows, scrollable"
        data-testid="partition-scroll"
        className="overflow-auto rounded border border-zinc-200 focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-800"
        style={{ height: bodyHeight + headerHeight }}
      >
        <div className="min-w-[68rem]">
          <div role="rowgroup" className="sticky top-0 z-10 border-b border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900">
            <div role="row" aria-rowindex={1} className={columns} style={{ height: headerHeight }}>
              {headers.map((h, i) => (
                <div key={h} role="columnheader" className={cn("text-xs leading-tight font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400", i > 0 && i < 6 && "text-right")}>
                  {h}
                </div>
              ))}
            </div>
          </div>
          <div role="rowgroup" className="relative" style={{ height: data.length * rowHeight }} onClick={onClick}>
            {data.slice(start, end).map((r, k) => (
              <PartitionRow key={r.partition} row={r} index={start + k} href={`${hrefBase}/${r.partition}${hrefQuery}`} />
            ))}
          </div>
        </div>
      </div>
    </div>
  );
}

function PartitionRow({ row, index, href }: { row: PartitionRowView; index: number; href: string }) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      data-testid="partition-row"
      data-partition={row.partition}
      className={cn(columns, "absolute inset-x-0 border-b border-zinc-100 font-mono text-sm hover:bg-blue-50 focus-within:bg-blue-50 dark:border-zinc-800/60 dark:hover:bg-zinc-800/60 dark:focus-within:bg-zinc-800/60", index % 2 === 1 && "bg-zinc-50/60 dark:bg-zinc-900/40")}
      style={{ top: index * rowHeight, height: rowHeight }}
    >
      <div role="cell">
        {/* Stretched link: the whole row is clickable, the link is the one focus stop. */}
        <a href={href} data-row-link className="rounded-sm text-blue-700 after:absolute after:inset-0 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-400" aria-label={`Partition ${row.partition}`}>
          {row.partition}
        </a>
      </div>
      <div role="cell" className="text-right">{row.sourceLogStart}</div>
      <div role="cell" className="text-right leading-tight">
        {row.sourceLogEnd}
        {row.transactionNote === null ? null : (
          <span className="relative z-[1] block truncate font-sans text-xs text-zinc-500 dark:text-zinc-400" title={row.transactionNote.detail} data-testid="transaction-note">
            {row.transactionNote.label}
          </span>
        )}
      </div>
      <div
        role="cell"
        className="relative z-[1] text-right leading-tight"
        title={row.positionNote?.detail ?? `MM2 position ${row.mm2Position} (from ${row.positionSource}); committed to Connect: ${row.committedPosition}`}
      >
        {row.mm2Position}
        {row.positionNote === null ? (
          <span className="block text-xs text-zinc-500 dark:text-zinc-400">committed {row.committedPosition}</span>
        ) : (
          <span className="block truncate font-sans text-xs text-amber-700 dark:text-amber-300" data-testid="position-note">
            {row.positionNote.label}
          </span>
        )}
      </div>
      <div role="cell" className="text-right">{row.targetLogEnd}</div>
      <div role="cell" className={cn("text-right leading-tight", row.lagState === "behind" && "font-semibold text-red-700 dark:text-red-400", row.lagState === "unknown" && "text-amber-700 dark:text-amber-300")}>
        {row.lag}
        {row.partial === null ? null : (
          <span className="block text-xs font-normal text-amber-700 dark:text-amber-300" title={row.partial} data-testid="partition-partial">
            partial
          </span>
        )}
        {row.partial !== null || row.lagNote === null ? null : (
          <span className="relative z-[1] block truncate font-sans text-xs font-normal text-zinc-500 dark:text-zinc-400" title={row.lagNote.detail} data-testid="lag-note">
            {row.lagNote.label}
          </span>
        )}
      </div>
      <div role="cell" className="truncate text-xs">{row.latestSync}</div>
      <div role="cell">{row.leader}</div>
      <div role="cell">{row.leaderEpoch}</div>
      <div role="cell" className={cn("text-xs", row.underReplicated && "font-semibold text-amber-700 dark:text-amber-300")} title={row.underReplicated ? "under-replicated: ISR smaller than the replica set" : undefined}>
        {row.isr} / {row.replicas}
      </div>
    </div>
  );
}
