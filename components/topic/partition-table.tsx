"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent, type UIEvent } from "react";
import { cn } from "@/lib/utils";
import type { PartitionRowView } from "@/lib/views/topic";
import { type PartitionRowColumns, unpackPartitionRows } from "@/lib/views/topic-row-columns";
import { generateSyntheticPartitionRows } from "@/lib/views/topic-synthetic";
import { computeWindow } from "./virtual-window";

const rowHeight = 44;
const headerHeight = 40;
const maxBodyHeight = 600;
/** Rows beyond the viewport rendered once hydrated; the server's HTML holds only the rows in view. */
const overscanRows = 8;
const headers = ["Partition", "Source log start", "Source log end", "MM2 position", "Target log end", "Lag", "Sync up → down", "Leader", "Epoch", "ISR / replicas"];

/**
 * The topic's partitions, virtualized: only the rows in view (plus a few once hydrated) are in the DOM, each
 * absolutely placed at `index × rowHeight` inside a spacer as tall as all rows, so thousands of
 * partitions scroll smoothly. The rows arrive as columns (topic-row-columns.ts); the rows' styles are the
 * `partition-*` classes of globals.css, written once instead of once per cell in the page's HTML.
 * With `synthetic > 0` it shows generated rows (browser tests).
 */
export function PartitionTable({ rows, synthetic, hrefBase, hrefQuery }: { rows: PartitionRowColumns; synthetic: number; hrefBase: string; hrefQuery: string }) {
  const data = useMemo(() => (synthetic > 0 ? generateSyntheticPartitionRows(synthetic) : unpackPartitionRows(rows)), [rows, synthetic]);
  const [scrollTop, setScrollTop] = useState(0);
  const [overscan, setOverscan] = useState(0);
  const frame = useRef<number | null>(null);
  // A scroll made before React hydrated this table fired no onScroll: start from where the
  // element already is, or the rows in view stay blank until the next scroll (seen in CI).
  const scroller = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const top = scroller.current?.scrollTop ?? 0;
    if (top !== 0) setScrollTop(top);
    setOverscan(overscanRows);
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
  const { start, end } = computeWindow(scrollTop, bodyHeight, rowHeight, data.length, overscan);

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
            <div role="row" aria-rowindex={1} className="partition-grid" style={{ height: headerHeight }}>
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
      className={index % 2 === 1 ? "partition-grid partition-row partition-row-odd" : "partition-grid partition-row"}
      style={{ top: index * rowHeight, height: rowHeight }}
    >
      <div role="cell">
        {/* Stretched link: the whole row is clickable, the link is the one focus stop. */}
        <a href={href} data-row-link className="partition-link" aria-label={`Partition ${row.partition}`}>
          {row.partition}
        </a>
      </div>
      <div role="cell" className="text-right">{row.sourceLogStart}</div>
      <div role="cell" className="text-right leading-tight">
        {row.sourceLogEnd}
        {row.transactionNote === null ? null : (
          <span className="partition-note" title={row.transactionNote.detail} data-testid="transaction-note">
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
          <span className="partition-subline">committed {row.committedPosition}</span>
        ) : (
          <span className="partition-warning-note" data-testid="position-note">
            {row.positionNote.label}
          </span>
        )}
      </div>
      <div role="cell" className="text-right">{row.targetLogEnd}</div>
      <div role="cell" className={cn("text-right leading-tight", row.lagState === "behind" && "partition-lag-behind", row.lagState === "unknown" && "partition-warning")}>
        {row.lag}
        {row.partial === null ? null : (
          <span className="partition-partial" title={row.partial} data-testid="partition-partial">
            partial
          </span>
        )}
        {row.partial !== null || row.lagNote === null ? null : (
          <span className="partition-note font-normal" title={row.lagNote.detail} data-testid="lag-note">
            {row.lagNote.label}
          </span>
        )}
      </div>
      <div role="cell" className="truncate text-xs">{row.latestSync}</div>
      <div role="cell">{row.leader}</div>
      <div role="cell">{row.leaderEpoch}</div>
      <div role="cell" className={row.underReplicated ? "partition-warning text-xs font-semibold" : "text-xs"} title={row.underReplicated ? "under-replicated: ISR smaller than the replica set" : undefined}>
        {row.isr} / {row.replicas}
      </div>
    </div>
  );
}
