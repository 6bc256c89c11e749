import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { InjectionResult, LatencySummary } from "./detection-latency";
import type { TreeRss } from "../process-rss";
import type { HttpPhaseResult } from "./http-phase";
import type { LoadResult } from "./http-load";
import type { ScrapeSizeResult } from "./metrics-scrape";
import { describeMachine, type MachineInfo } from "./machine-info";
import type { NaivePollResult } from "./naive-poller";
import type { OurPollResult } from "./poll-cost";
import type { RequestRow } from "./request-tally";
import { round } from "./stats";
import { type PipelineComputeReport, renderPipelineCompute } from "./pipeline-compute";
import { type AuditCostResult, renderAuditCost } from "./audit-cost";
import { type HistorySizeReport, renderHistorySize } from "./history-size";
import { type PipelineCycleReport, renderPipelineCycle } from "./pipeline-cycle";
import type { TargetVerdict } from "./targets";

export interface PollSizeResult {
  /** Benchmark partitions on the source (the same number of remote ones on the target). */
  benchPartitions: number;
  benchTopics: number;
  /** CreateTopics requests for this step's new topics on both clusters (in parallel), seconds. */
  createRequestSeconds: number;
  /** From the first CreateTopics until both brokers serve offsets for every new partition, seconds. */
  createSeconds: number;
  ours: OurPollResult | null;
  naive: NaivePollResult | null;
  error: string | null;
}

export interface BenchReport {
  date: string;
  durationSeconds: number;
  machine: MachineInfo;
  kafkaVersion: string;
  note: string;
  stackStartSeconds: number | null;
  pollCost: PollSizeResult[];
  deleteSeconds: number | null;
  http: HttpPhaseResult | null;
  detection: { rounds: number; summary: LatencySummary[]; injections: InjectionResult[] } | null;
  synthetic: PipelineComputeReport | null;
  /** Phase 6: Prometheus update and scrape per size (scripts/bench/metrics-scrape.ts). */
  metrics: ScrapeSizeResult[] | null;
  /** Phase 7: the whole cycle pipeline with its store, synthetic (scripts/bench/pipeline-cycle.ts). */
  cycle: PipelineCycleReport | null;
  /** Phase 8: history size, a simulated stretch of cycles through the SQLite store (scripts/bench/history-size.ts). */
  history: HistorySizeReport | null;
  /** Phase 9: the content audit's cost per cycle on phase 5's world with a stand-in broker (scripts/bench/audit-cost.ts). */
  audit: AuditCostResult[] | null;
  /**
   * The previous version (scripts/bench/previous-version.ts) measured in the same run: phase 5 and phase 7 (SQLite) at
   * the synthetic size, so each of their targets shows today's figure beside the previous version's.
   */
  previous: PreviousVersionResult | null;
  /** The targets judged from the figures above (scripts/bench/targets.ts), written when the run ends. */
  targets: TargetVerdict[];
  errors: string[];
}

/** What the previous version measured in this run (null where its phase failed; the failure is in `errors`). */
export interface PreviousVersionResult {
  ref: string;
  commit: string;
  synthetic: PipelineComputeReport | null;
  cycle: PipelineCycleReport | null;
}

/** A report with nothing measured yet, dated now. */
export function createReport(): BenchReport {
  return {
    date: new Date().toISOString(),
    durationSeconds: 0,
    machine: describeMachine(),
    kafkaVersion: "?",
    note: "Timings are wall-clock on a shared machine; other work running at the same time makes them noisier.",
    stackStartSeconds: null,
    pollCost: [],
    deleteSeconds: null,
    http: null,
    detection: null,
    synthetic: null,
    metrics: null,
    cycle: null,
    history: null,
    audit: null,
    previous: null,
    targets: [],
    errors: [],
  };
}

/** Writes `<dir>/<ISO date>.json` (colons replaced, for file systems that refuse them); returns the path. */
export function writeReportFile(report: BenchReport, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${report.date.slice(0, 19).replace(/:/g, "-")}Z.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** The human-readable report `npm run bench` prints. */
export function renderReport(r: BenchReport): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Gapwatch benchmark ${r.date} — ${m.cpuCount} × ${m.cpuModel}, ${Math.round(m.totalMemoryMiB / 1024)} GiB, ${m.os}, Node ${m.node}, Kafka ${r.kafkaVersion}`);
  out.push(`Commit ${m.commit ?? "unknown"}.`);
  out.push(`Run took ${(r.durationSeconds / 60).toFixed(1)} min (stack start ${fmt(r.stackStartSeconds)} s); load average at start ${m.loadAverageAtStart.join(" / ")}. ${r.note}`);
  out.push("", "1+2. Cost per cycle: Gapwatch's poll (both clusters, Connect, MM2's topics) and whole cycle (poll + the server's pipeline: translation, detectors, alerts, SQLite store, metrics, published read model) vs a naive kafkajs poller (fetchTopicMetadata + fetchTopicOffsets per topic)");
  out.push(
    formatTable(
      ["bench partitions", "topics east/west", "create req/served s", "ours req/cycle", "ours Metadata+ListOffsets", "ours poll p50/p95 ms", "ours whole cycle p50/p95 ms", "ours CPU p50 ms", "RSS/heap MiB", "naive req/cycle", "naive wall p50/p95 ms", "naive/ours req"],
      r.pollCost.map((s) => [
        s.benchPartitions,
        s.ours ? `${s.ours.topics.east ?? "?"}/${s.ours.topics.west ?? "?"}` : "—",
        `${fmt(s.createRequestSeconds)}/${fmt(s.createSeconds)}`,
        s.ours ? s.ours.requestsPerCycle.median : "—",
        s.ours ? sumMedians(s.ours.requests, ["Metadata", "ListOffsets"]) : "—",
        s.ours ? `${fmt(s.ours.pollWallMs.median)}/${fmt(s.ours.pollWallMs.p95)}` : "—",
        s.ours ? `${fmt(s.ours.wallMs.median)}/${fmt(s.ours.wallMs.p95)}` : "—",
        s.ours ? fmt(s.ours.cpuMs.median) : "—",
        s.ours ? `${fmt(s.ours.rssMiB)}/${fmt(s.ours.heapUsedMiB)}` : "—",
        s.naive ? s.naive.requestsPerCycle.median : "—",
        s.naive ? `${fmt(s.naive.wallMs.median)}/${fmt(s.naive.wallMs.p95)}` : "—",
        s.ours && s.naive ? `${fmt(s.naive.requestsPerCycle.median / s.ours.requestsPerCycle.median)}×` : "—",
      ]),
    ),
  );
  const cycles = r.pollCost.map((s) => `${s.benchPartitions}: ours ${s.ours?.cycles ?? 0}, naive ${s.naive?.cycles ?? 0} (${s.naive?.failedTopicReads ?? 0} failed topic reads)`).join("; ");
  out.push(`Measured cycles per size (${cycles}). Failures: ${r.pollCost.filter((s) => s.error).map((s) => `${s.benchPartitions}: ${s.error}`).join("; ") || "none"}.`);
  out.push("", "Requests per cycle by cluster, API and broker — median (max) over the measured cycles");
  out.push(renderRequestMatrix("ours", r.pollCost.map((s) => [s.benchPartitions, s.ours?.requests ?? []])));
  out.push(renderRequestMatrix("naive", r.pollCost.map((s) => [s.benchPartitions, s.naive?.requests ?? []])));
  out.push(`Deleting the benchmark topics on both clusters took ${fmt(r.deleteSeconds)} s.`);

  out.push("", `3. Detection latency (stack with workload, poll interval 5 s; clock from the fault in the scenario's own report; a miss = not detected by a cycle started within 3 poll intervals, counted in the medians as slower than any detection; banner: open overview page, auto-refresh 5 s)`);
  if (r.detection) {
    out.push(
      formatTable(
        ["scenario", "detected in 3 polls", "missed", "not injected", "median API ms", "median banner ms", "median detecting cycle start ms", "median scenario s"],
        r.detection.summary.map((s) => [
          s.scenario, `${s.detected}/${s.injections - s.notInjected}`, String(s.missed), String(s.notInjected),
          fmt(s.medianApiMs), fmt(s.medianBannerMs), fmt(s.medianCycleStartMs), fmt(s.medianScenarioSeconds),
        ]),
      ),
    );
    const unrun = r.detection.injections.filter((i) => !i.injected);
    if (unrun.length) out.push(`Not injected (setup failed; no fault happened): ${unrun.map((i) => `${i.scenario} ${i.target}: ${i.error}`).join("; ")}`);
    const failed = r.detection.injections.filter((i) => i.injected && i.error);
    if (failed.length) out.push(`Injected, with errors: ${failed.map((i) => `${i.scenario} ${i.target}: ${i.error}`).join("; ")}`);
  } else out.push("(not run)");

  out.push("", `4. API and pages on the ${r.http?.benchPartitions ?? "?"}-partition flow (autocannon; first loads in Chromium, fresh context, a URL the response cache has not seen)`);
  if (r.http) {
    out.push(
      formatTable(
        ["target", "conns", "s", "p50 ms", "p99 ms", "req/s", "completed", "non-2xx/errors/timeouts", "KiB/resp", "encoding", "cache"],
        r.http.load.map((l) => [
          l.name, l.connections, l.seconds, fmt(l.p50Ms), fmt(l.p99Ms), fmt(l.requestsPerSecond), l.completed,
          `${l.non2xx}/${l.errors}/${l.timeouts}`, fmt(l.responseKiB), l.acceptEncoding ? "browser's (compressed)" : "none",
          renderCacheOutcomes(l),
        ]),
      ),
    );
    out.push("Single-URL loads are answered mostly by the response cache (server.responseCacheMs, 5 s by default: about one render per URL a cycle); the many-topics load asks for a random topic page each time: cache = answers by x-gapwatch-cache.");
    out.push(
      formatTable(
        ["page (first load)", "plain GET before ms", "TTFB ms", "DOMContentLoaded ms", "load ms", "HTML KiB"],
        r.http.pages.map((p) => [`${p.name} ${p.path}`, fmt(p.serverFirstGetMs), fmt(p.ttfbMs), fmt(p.domContentLoadedMs), fmt(p.loadMs), fmt(p.documentKiB)]),
      ),
    );
    const { beforeLoad, afterLoad } = r.http.dashboardRssMiB;
    const rss = `${renderTreeRss(beforeLoad)} MiB before the load, ${renderTreeRss(afterLoad)} MiB after`;
    out.push(`Dashboard RSS (next start + its collector process = total): ${rss}.`);
  } else out.push("(not run)");

  out.push("", "5. Pipeline computation at scale, synthetic (the sandbox snapshot's topics and groups copied; CPU per cycle of buildFlow, runDetectors and the flow translation; median/p95)");
  out.push(r.synthetic ? `${renderPipelineCompute(r.synthetic)}\n(scaled from ${r.synthetic.fixture})` : "(not run)");
  out.push("", "6. Prometheus at scale, synthetic (one flow in the sandbox's topic layout, 1% of partitions lagging; default metrics limits)");
  out.push(r.metrics ? renderMetricsScrape(r.metrics) : "(not run)");
  out.push("", "7. Whole cycle pipeline, synthetic (phase 5's world; CyclePipeline.processCycle: translation, detectors, alerts, store writes, metrics; median/p95)");
  out.push(r.cycle ? renderPipelineCycle(r.cycle) : "(not run)");
  out.push("", "8. History size (issue 12 item 4: 7 days at 100,000 partitions in ≤ 2 GiB; simulated clock, extrapolated by the tier arithmetic)");
  out.push(r.history ? renderHistorySize(r.history) : "(not run)");
  out.push("", "9. Content audit cost per cycle (issue 16: requests, bytes and CPU at 10,000 partitions, next to the poll's 16–18 requests)");
  out.push(r.audit ? renderAuditCost(r.audit) : "(not run)");
  if (r.previous !== null) {
    out.push("", `The previous version, ${r.previous.ref} (${r.previous.commit}), measured in this run: phases 5 and 7`);
    out.push(r.previous.synthetic ? renderPipelineCompute(r.previous.synthetic) : "(phase 5 failed)");
    out.push(r.previous.cycle ? renderPipelineCycle(r.previous.cycle) : "(phase 7 failed)");
  }
  out.push("", "The targets, judged from the figures above (previous: the previous version's figure in this run)");
  const previousColumn = (t: TargetVerdict) => t.previous ?? "";
  out.push(formatTable(["measured", "target", "figure", "previous", "phase", "verdict"],
    r.targets.map((t) => [t.what, t.target, t.measured, previousColumn(t), t.phase, t.verdict])));
  if (r.errors.length) out.push("", `Errors: ${r.errors.join("; ")}`);
  return out.join("\n");
}

/** Phase 6's table, with the targets of issue 12 (scrape < 1 MB and < 100 ms at 100,000 partitions). */
export function renderMetricsScrape(sizes: readonly ScrapeSizeResult[]): string {
  const table = formatTable(
    ["partitions", "topics", "lagging", "series (per partition)", "scrape KB raw / gzip", "scrape CPU ms p50/p95", "gzip ms p50", "update CPU ms p50/p95", "cycles"],
    sizes.map((s) => [
      s.partitions,
      s.topics,
      s.laggingPartitions,
      `${s.series} (${s.partitionSeries})`,
      `${fmt(s.scrapeBytes / 1000)} / ${fmt(s.gzipBytes / 1000)}`,
      `${fmt(s.scrapeCpuMs.median)}/${fmt(s.scrapeCpuMs.p95)}`,
      fmt(s.gzipCpuMs.median),
      `${fmt(s.updateCpuMs.median)}/${fmt(s.updateCpuMs.p95)}`,
      s.updateCpuMs.samples,
    ]),
  );
  return `${table}\nTargets at 100,000 partitions: scrape < 1,000 KB and < 100 ms (the registry rendered to text; next start gzips it on the wire).`;
}

/** Sum over clusters and brokers of the median requests per cycle of the given APIs. */
function sumMedians(rows: readonly RequestRow[], apis: readonly string[]): number {
  return rows.filter((r) => apis.includes(r.api)).reduce((sum, r) => sum + r.medianPerCycle, 0);
}

/** Rows: cluster/API/broker; columns: sizes. */
function renderRequestMatrix(label: string, sizes: [number, RequestRow[]][]): string {
  const keys = new Map<string, string[]>();
  for (const [, rows] of sizes) for (const row of rows) keys.set(`${row.cluster} ${row.api} @${row.broker}`, [row.cluster, row.api, row.broker]);
  const rows = [...keys.keys()].sort().map((key) => [
    key,
    ...sizes.map(([, list]) => {
      const row = list.find((x) => `${x.cluster} ${x.api} @${x.broker}` === key);
      return row ? `${row.medianPerCycle} (${row.maxPerCycle})` : "0";
    }),
  ]);
  return formatTable([`${label}: cluster API @broker`, ...sizes.map(([n]) => `${n} p.`)], rows);
}

/** Left-aligned first column, right-aligned others, two spaces between. */
export function formatTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

function renderTreeRss(rss: TreeRss | null): string {
  return rss === null ? "—" : `${fmt(rss.self)} + ${fmt(rss.descendants)} = ${fmt(rss.total)}`;
}

function fmt(value: number | null): string {
  const v = round(value);
  return v === null ? "—" : String(v);
}

function renderCacheOutcomes(load: LoadResult): string {
  if (load.cacheOutcomes === undefined) return "not tallied";
  return Object.entries(load.cacheOutcomes).sort().map(([outcome, count]) => `${outcome} ${count}`).join(", ");
}
