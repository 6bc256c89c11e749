"use client";

import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import type { TopicPageData } from "@/lib/views/topic-page-data";
import { PartitionTable } from "./partition-table";

/** The topic page's data as its client parts see it: being read, read, or why it could not be. */
type TopicDataState =
  | { state: "loading" }
  | { state: "ready"; data: TopicPageData }
  | { state: "failed"; status: number | null; message: string };

const TopicDataContext = createContext<TopicDataState>({ state: "loading" });

/**
 * Reads the topic's page data (`path`, lib/views/topic-page-data.ts) for the header and the table below it. The page's
 * HTML is one shell for every topic of the flow (the response cache fills in the name); the browser starts this
 * request while it reads the HTML (the page preloads it), so the rows usually arrive as the page hydrates. Read again
 * when the page shows a newer cycle (`takenAt`: auto-refresh); the previous rows stay until the new ones arrive.
 */
export function TopicDataProvider({ path, takenAt, children }: { path: string; takenAt: number; children: ReactNode }) {
  const [state, setState] = useState<TopicDataState>({ state: "loading" });
  useEffect(() => {
    const abort = new AbortController();
    readTopicData(path, abort.signal).then(
      (next) => {
        if (!abort.signal.aborted) setState(next);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setState({ state: "failed", status: null, message: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => abort.abort();
  }, [path, takenAt]);
  return <TopicDataContext.Provider value={state}>{children}</TopicDataContext.Provider>;
}

/** Fetches the page data; an error answer becomes its message (the API's `{error}`), never an exception. */
async function readTopicData(path: string, signal: AbortSignal): Promise<TopicDataState> {
  // No extra headers: the request must match the page's preload to reuse its answer.
  const response = await fetch(path, { signal });
  const body = (await response.json().catch(() => null)) as (TopicPageData & { error?: string }) | null;
  if (response.ok && body !== null) return { state: "ready", data: body };
  const message = body?.error ?? `the page data answered HTTP ${response.status}`;
  return { state: "failed", status: response.status, message };
}

/** The header's figures: "replicated as <target topic> on <cluster> · N partitions · lag L records". */
export function TopicSummary({ target, synthetic }: { target: string; synthetic: number }) {
  const data = useContext(TopicDataContext);
  if (data.state === "ready") {
    return (
      <>
        replicated as <span className="font-mono">{data.data.targetTopic}</span> on {target} · {data.data.partitions}{" "}
        partitions · lag {data.data.lag} records
      </>
    );
  }
  // Synthetic rows on a topic the flow does not list: as the page always showed it, no partition and no lag.
  if (data.state === "failed" && data.status === 404 && synthetic > 0) {
    return <>replicated as <span className="font-mono">?</span> on {target} · 0 partitions · lag 0 records</>;
  }
  return (
    <span data-testid="topic-summary-pending">
      replicated on {target} · {data.state === "loading" ? "reading partitions…" : "partitions not read"}
    </span>
  );
}

/** The partition table once the rows arrived (synthetic rows at once), or what is shown instead. */
export function TopicPartitions({ synthetic, hrefBase, hrefQuery }: { synthetic: number; hrefBase: string; hrefQuery: string }) {
  const data = useContext(TopicDataContext);
  const link = { hrefBase, hrefQuery };
  if (synthetic > 0) return <PartitionTable rows={noRows} synthetic={synthetic} {...link} />;
  if (data.state === "ready") return <PartitionTable rows={data.data.rows} synthetic={0} {...link} />;
  if (data.state === "loading") {
    return (
      <p className={loadingStyle} data-testid="partitions-loading" aria-busy="true">
        Reading this topic&apos;s partitions…
      </p>
    );
  }
  return (
    <p role="alert" className={failedStyle} data-testid="partitions-failed">
      {data.status === 404
        ? "This topic is not in the flow's latest cycle (its partitions are no longer listed). " +
          "Go back to the flow to see the topics it replicates."
        : `The partitions could not be read: ${data.message}. They are read again with the next refresh.`}
    </p>
  );
}

const loadingStyle =
  "h-24 animate-pulse rounded border border-dashed border-zinc-300 p-3 text-sm text-zinc-600 " +
  "dark:border-zinc-700 dark:text-zinc-400";
const failedStyle =
  "rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100";

const noRows = {
  count: 0, partition: [], sourceLogStart: [], sourceLogEnd: [], mm2Position: [], committedPosition: [],
  positionSource: [], targetLogEnd: [], lag: [], lagState: [], latestSync: [], leader: [], leaderEpoch: [], isr: [], replicas: [],
  underReplicated: [], partial: {}, lagNote: {}, positionNote: {}, transactionNote: {},
} satisfies TopicPageData["rows"];
