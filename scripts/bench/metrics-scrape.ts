// Prometheus metrics at scale: CPU of updateMetrics per cycle, and of a scrape (the registry rendered
// to text, then gzipped as `next start` compresses every response), with its size and series count.
//   node_modules/.bin/tsx scripts/bench/metrics-scrape.ts --partitions 10000,100000 --cycles 20
// Used by `npm run bench` (phase 6). Not part of `npm test`.
import { gzipSync } from "node:zlib";
import { type AlertRecord, createMetrics } from "@/lib/alerts";
import { defaultMetricsOptions } from "@/lib/alerts/metric-series";
import type { ClusterSnapshot, Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import type { Connector } from "@/lib/connect/types";
import { parseFlags } from "../args";
import { renderMetricsScrape } from "./report";
import { type Distribution, summarize } from "./stats";

const flowId = "east->west";
const cycleMs = 5000;
/** The sandbox flow's topics and partition counts (bench/fixtures/sandbox-snapshot.json), copied as `<topic>-x<k>` as synthetic-world.ts does. */
const layout: readonly [string, number][] = [["clicks", 12], ["heartbeats", 1], ["orders", 6], ["payments", 3]];
/** A healthy partition trails its log end by 5 records written 0.5 s ago; 1 in 100 lags 12,000 records (1 minute). */
const healthyBehind = 5n;
const laggingBehind = 12_000n;
const laggingAgeMs = 60_000;
const recordsPerCycle = 10n;
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

/** One flow of `partitions` partitions at `cycle`: every source log grows 10 records a cycle, MM2 trails it. */
function buildSnapshot(partitions: number, cycle: number): Snapshot {
  const takenAt = Date.UTC(2026, 11, 1) + cycle * cycleMs;
  const logEnd = 1_000_000n + BigInt(cycle) * recordsPerCycle;
  const parts: FlowPartition[] = [];
  let topics = 0;
  for (let k = 0; parts.length < partitions; k++) {
    for (const [base, count] of layout) {
      // Flat strings, as the Kafka client decodes them (a template literal makes a rope, slower to hash).
      const topic = k === 0 ? base : [base, "-x", k].join("");
      topics++;
      for (let partition = 0; partition < count && parts.length < partitions; partition++) {
        const lagging = parts.length % 100 === 37;
        parts.push(buildPartition(topic, partition, logEnd, lagging ? laggingBehind : healthyBehind, takenAt - (lagging ? laggingAgeMs : 500)));
      }
    }
  }
  const cluster = (alias: string): ClusterSnapshot => ({
    alias,
    bootstrap: [`${alias}:9092`],
    reachable: true,
    error: null,
    dataAt: takenAt,
    stale: false,
    brokers: [],
    controllerId: 1,
    topics: [],
    groups: [],
    uncleanLeaderElectionDefault: false,
  });
  return {
    cycle,
    takenAt,
    durationMs: 800,
    clusters: [cluster("east"), cluster("west")],
    connect: [{ name: "connect", url: "http://connect:8083", reachable: true, error: null, dataAt: takenAt, connectors: [buildSourceConnector()] }],
    flows: [buildFlow(parts, topics, takenAt)],
    malformedRecords: {},
  };
}

/** A partition `behind` records short of `logEnd`, MM2's position proven by an offset sync. */
function buildPartition(topic: string, partition: number, logEnd: bigint, behind: bigint, oldestWaiting: number): FlowPartition {
  return {
    topic,
    partition,
    targetTopic: `east.${topic}`,
    sourceConnector: "mm2-source",
    sourceTopicId: null,
    sourceLogStart: 0n,
    sourceLogEnd: logEnd,
    sourceLeaderEpoch: 0,
    mm2Position: logEnd - behind,
    committedPosition: logEnd - behind - 5n,
    positionSource: "offset-sync",
    targetLogStart: 0n,
    targetLogEnd: logEnd - behind,
    lag: behind,
    offsetLag: behind,
    lagBasis: "records",
    transactionMarkersSeen: false,
    targetDensityIssue: null,
    latestSync: { upstream: logEnd - behind - 50n, downstream: logEnd - behind - 50n },
    oldestUnreplicatedTimestamp: oldestWaiting,
    unknown: null,
  };
}

function buildFlow(partitions: FlowPartition[], topics: number, takenAt: number): Flow {
  return {
    id: flowId,
    source: "east",
    target: "west",
    discoveredFrom: "connect",
    connectors: { connectCluster: "connect", source: "mm2-source", sources: ["mm2-source"], checkpoint: "mm2-checkpoint", heartbeat: "mm2-heartbeat" },
    replicationPolicy: { kind: "default", separator: "." },
    topicsFilter: ".*",
    groupsFilter: ".*",
    groupsExclude: "console-consumer-.*, connect-.*, __.*",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
    warnings: [],
    excludedTopics: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" },
    checkpointsTopic: "east.checkpoints.internal",
    partitions,
    checkpoints: [],
    heartbeat: { latestTimestamp: takenAt - 1000, latencyMs: 1000 },
    totals: { topics, partitions: partitions.length, lag: partitions.reduce((sum, p) => sum + (p.lag ?? 0n), 0n), unknownPositions: 0 },
    errors: [],
  };
}

/** MM2's source connector with 8 RUNNING tasks (task state series: 6 states per unit). */
function buildSourceConnector(): Connector {
  const tasks = Array.from({ length: 8 }, (_, id) => ({ id, state: "RUNNING", workerId: "connect:8083", trace: null, rootCause: null }));
  return {
    name: "mm2-source",
    type: "source",
    connectorClass: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    state: "RUNNING",
    workerId: "connect:8083",
    trace: null,
    rootCause: null,
    config: {},
    tasks,
  };
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
  const snapshots = [1, 2, 3, 4].map((c) => buildSnapshot(partitions, c));
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

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const sizes = (flags.partitions ?? "10000,100000").split(",").map(Number);
  const results = await measureMetricsScrapeSizes(sizes, Number(flags.cycles ?? 20));
  process.stdout.write(`${renderMetricsScrape(results)}\n`);
}

if (process.argv[1]?.endsWith("metrics-scrape.ts")) void main();
