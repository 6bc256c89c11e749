// Prometheus metrics at scale: CPU of updateMetrics per cycle, and of a scrape (the registry rendered
// to text, then gzipped as `next start` compresses every response), with its size and series count.
//   node_modules/.bin/tsx scripts/bench/metrics-scrape.ts --partitions 10000,100000 --cycles 20
// Used by `npm run bench` (phase 6). Not part of `npm test`.
import { gzipSync } from "node:zlib";
import { type AlertRecord, createMetrics } from "@/lib/alerts";
import { defaultMetricsOptions } from "@/lib/alerts/metric-series";
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import { parseFlags } from "../args";
import { renderMetricsScrape } from "./report";
import { readSnapshotFixture } from "./snapshot-fixture";
import { cpuMsSince, type Distribution, summarize } from "./stats";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const flowId = "east->west";
/** A partition at least this far behind counts as lagging in the report (the world's lagging ones trail by 12,000+). */
const laggingBehind = 10_000n;
const warmup = 3;

/** One size: what a cycle's update and a scrape cost, and what the scrape holds. */
export interface ScrapeSizeResult {
  partitions: number;
  topics: number;
  laggingPartitions: number;
  /** Series in the scrape (sample lines), and those per flow partition. */
  series: number;
  partitionSeries: number;
  scrapeBytes: number;
  gzipBytes: number;
  updateCpuMs: Distribution;
  /** registry.metrics(): the text a scrape returns. */
  scrapeCpuMs: Distribution;
  gzipCpuMs: Distribution;
}

/**
 * Snapshots of cycles 1–4 of the synthetic world scaled from the committed sandbox snapshot
 * (synthetic-world.ts, the world the pipeline-compute bench uses), its flow built by the collector's buildFlow.
 */
function buildWorldSnapshots(partitions: number): Snapshot[] {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const snapshots: Snapshot[] = [];
  for (let cycle = 1; cycle <= 4; cycle++) {
    const now = world.base.takenAt + cycle * cycleMs;
    const { clusters, readings } = world.advance(cycle, now);
    const before = snapshots.at(-1);
    const previous = before ? { flow: before.flows[0]!, takenAt: before.takenAt } : null;
    const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, previous);
    snapshots.push({ ...world.base, cycle, takenAt: now, durationMs: 800, clusters, flows: [flow], transactionLedgers: {} });
  }
  return snapshots;
}

/** The REPLICATION_LAG alert of the flow (names no partition) and a DATA_LOSS alert on one healthy partition. */
function buildAlerts(at: number): AlertRecord[] {
  const base = { acknowledged: null, group: null, cluster: "east", flow: flowId, firstSeen: at, lastSeen: at, resolvedAt: null, state: "firing" as const };
  return [
    { ...base, id: "lag", key: `REPLICATION_LAG|${flowId}|records`, type: "REPLICATION_LAG", severity: "warning", topic: null, partition: null, summary: "lag", evidence: {} },
    {
      ...base,
      id: "loss",
      key: `DATA_LOSS|${flowId}|orders|2|100`,
      type: "DATA_LOSS",
      severity: "critical",
      topic: "orders",
      partition: 2,
      summary: "loss",
      evidence: { lostCount: "40" },
    },
  ];
}

/**
 * Runs `cycles` measured cycles (after 3 warm-up ones) of updateMetrics + one scrape each, at
 * `partitions` partitions, over 4 snapshots built beforehand and taken in turn: in the server the
 * snapshot has outlived the whole cycle (collect, detectors, alerts, store) when the metrics read it,
 * so it is no longer in V8's young generation, whose scavenges a fresh one would make this pay for.
 * CPU is process.cpuUsage (user + system, all threads: GC included).
 */
async function measureMetricsScrape(partitions: number, cycles: number): Promise<ScrapeSizeResult> {
  const metrics = createMetrics(0);
  const snapshots = buildWorldSnapshots(partitions);
  const update: number[] = [];
  const scrape: number[] = [];
  const gzip: number[] = [];
  let text = "";
  let zipped = 0;
  let snapshot: Snapshot | null = null;
  for (let c = 1; c <= cycles + warmup; c++) {
    snapshot = snapshots[c % snapshots.length]!;
    const alerts = buildAlerts(snapshot.takenAt);
    let start = process.cpuUsage();
    metrics.updateMetrics(snapshot, alerts, [], defaultMetricsOptions);
    const updateMs = cpuMsSince(start);
    start = process.cpuUsage();
    text = await metrics.renderMetrics();
    const scrapeMs = cpuMsSince(start);
    start = process.cpuUsage();
    zipped = gzipSync(text).length;
    const gzipMs = cpuMsSince(start);
    if (c <= warmup) continue;
    update.push(updateMs);
    scrape.push(scrapeMs);
    gzip.push(gzipMs);
  }
  const samples = text.split("\n").filter((line) => line.length > 0 && !line.startsWith("#"));
  return {
    partitions,
    topics: snapshot?.flows[0]?.totals.topics ?? 0,
    laggingPartitions: snapshot?.flows[0]?.partitions.filter((p) => (p.lag ?? 0n) >= laggingBehind).length ?? 0,
    series: samples.length,
    partitionSeries: samples.filter((line) => line.includes(",partition=")).length,
    scrapeBytes: Buffer.byteLength(text),
    gzipBytes: zipped,
    updateCpuMs: summarize(update),
    scrapeCpuMs: summarize(scrape),
    gzipCpuMs: summarize(gzip),
  };
}

/** Measures each size in turn (sizes in partitions). */
export async function measureMetricsScrapeSizes(sizes: readonly number[], cycles: number): Promise<ScrapeSizeResult[]> {
  const results: ScrapeSizeResult[] = [];
  for (const partitions of sizes) results.push(await measureMetricsScrape(partitions, cycles));
  return results;
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const sizes = (flags.partitions ?? "10000,100000").split(",").map(Number);
  const results = await measureMetricsScrapeSizes(sizes, Number(flags.cycles ?? 20));
  process.stdout.write(`${renderMetricsScrape(results)}\n`);
}

if (process.argv[1]?.endsWith("metrics-scrape.ts")) void main();
