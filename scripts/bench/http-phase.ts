import type { Browser } from "@playwright/test";
import { readTreeRss, type TreeRss } from "../process-rss";
import { nameBenchTopic, partitionsPerBenchTopic } from "./bench-topics";
import { measureFirstLoad, type PageLoad } from "./browser";
import { type DashboardClient, pollUntil } from "./dashboard-client";
import { browserAcceptEncoding, type LoadResult, measureLoad, measurePairLoad } from "./http-load";
import { measureRenderCpu, type RenderCpu } from "./http-render-cpu";

/** The load over many topic pages (http-phase.ts): its name in the results, and how many topics it asks for. */
export const rotatedLoadName = "topic pages, many topics";
/** The same load as a browser makes it: each topic page, then the page data its client reads before showing it. */
export const rotatedPairLoadName = "topic page + its data, many topics";
export const uncompressedFlowPageName = "flow page, uncompressed";
const rotatedTopicPages = 200;

export interface HttpPhaseResult {
  benchPartitions: number;
  load: LoadResult[];
  pages: PageLoad[];
  /** CPU of one uncached request (Next.js renders it) by kind, beside a bare route's (absent before 2026-12-06). */
  renderCpu?: RenderCpu[] | null;
  /** `next start`'s own RSS (self) and its collector process's (descendants, GAPWATCH_ROLE=all), summed in total. */
  dashboardRssMiB: { beforeLoad: TreeRss | null; afterLoad: TreeRss | null };
}

/**
 * Waits until the dashboard's own collector has the benchmark partitions in the flow, then loads
 * the flow API and the topic (partition table) page with autocannon, and measures first loads.
 */
export async function runHttpPhase(
  dashboard: DashboardClient,
  browser: Browser,
  dashboardPid: number,
  flowId: string,
  benchPartitions: number,
  loadSeconds: number,
  log: (line: string) => void,
): Promise<HttpPhaseResult> {
  await pollUntil(
    async () => ((await dashboard.readFlowPartitions(flowId)).filter((p) => p.topic.startsWith("bench-")).length >= benchPartitions ? true : null),
    `the dashboard's flow to hold ${benchPartitions} benchmark partitions`,
    180_000,
    2000,
  );
  const flow = encodeURIComponent(flowId);
  const topic = nameBenchTopic(0);
  // Pages are asked for as Chromium asks (compressed answers); the API as a script with plain curl asks (uncompressed).
  const targets = [
    { name: "flow API", path: `/api/flows/${flow}`, acceptEncoding: null },
    { name: "topic page", path: `/flows/${flow}/topics/${topic}`, acceptEncoding: browserAcceptEncoding },
    { name: "flow page", path: `/flows/${flow}`, acceptEncoding: browserAcceptEncoding },
    // Reported, not a target: what a client that cannot decompress costs (the answer is ~10 times bigger).
    { name: uncompressedFlowPageName, path: `/flows/${flow}`, acceptEncoding: null },
  ];
  const beforeLoad = readTreeRss(dashboardPid);
  const load: LoadResult[] = [];
  for (const t of targets) {
    log(`  autocannon ${t.path} (50 connections, ${loadSeconds} s, ${t.acceptEncoding === null ? "uncompressed" : "compressed"})…`);
    load.push(await measureLoad(dashboard.base, t.name, t.path, 50, loadSeconds, t.acceptEncoding));
  }
  // The loads above ask for one URL each: the dashboard's response cache answers most of them. This one asks for the
  // topic pages of many topics at random, so a render serves only the requests for its URL: what viewers spread over a
  // flow cost.
  const topics = Math.min(rotatedTopicPages, Math.floor(benchPartitions / partitionsPerBenchTopic));
  const topicPaths = Array.from({ length: topics }, (_, index) => `/flows/${flow}/topics/${nameBenchTopic(index)}`);
  log(`  autocannon ${topics} topic pages at random (50 connections, ${loadSeconds} s)…`);
  load.push(await measureLoad(dashboard.base, rotatedLoadName, topicPaths, 50, loadSeconds, browserAcceptEncoding));
  // Since 2026-12-06 the topic page is a shell and its figures and rows are a second request (topic-page-data.ts).
  log(`  ${topics} topic pages at random, each followed by its page data (50 clients, ${loadSeconds} s)…`);
  const pairs = topicPaths.map((page) => ({ page, data: `/api${page}/page-data` }));
  const pair = await measurePairLoad(dashboard.base, rotatedPairLoadName, pairs, 50, loadSeconds, browserAcceptEncoding);
  load.push(pair.pair, pair.page, pair.data);
  log("  CPU per uncached request: a bare route, a page with no data, a topic page, a topic's partitions API…");
  const renderCpu = await measureRenderCpu(dashboard.base, dashboardPid, [
    { name: "bare route", paths: ["/api/health/live"] },
    { name: "sign-in page", paths: ["/signin"] },
    { name: "topic page", paths: topicPaths },
    { name: "topic partitions API", paths: topicPaths.map((p) => p.replace(/^\/flows\/([^/]+)\/topics\//, "/api/flows/$1/partitions/")) },
    { name: "topic page data", paths: topicPaths.map((p) => `/api${p}/page-data`) },
  ]);
  const pages: PageLoad[] = [];
  for (const p of [{ name: "overview", path: "/" }, ...targets.slice(1, 3)]) pages.push(await measureFirstLoad(browser, dashboard.base, p.name, p.path));
  return { benchPartitions, load, pages, renderCpu, dashboardRssMiB: { beforeLoad, afterLoad: readTreeRss(dashboardPid) } };
}
