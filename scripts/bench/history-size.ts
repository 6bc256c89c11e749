// History size (issue 12 item 4): a simulated day of cycles written back-to-back through the real SQLite or PostgreSQL
// Store, with simulated clock times (the store's `at` comes from the caller), then the bytes of each table (SQLite's
// dbstat; PostgreSQL's pg_total_relation_size) and of each tier's packs, extrapolated to 100,000 partitions × 7 days by
// the packs each tier holds at steady state (tiers.ts), next to the 2 GB target.
//   node_modules/.bin/tsx scripts/bench/history-size.ts --partitions 10000 --active 0.3 --hours 24 [--store postgres
//     [--vacuum after-prune|auto]]
// Used by `npm run bench` (phase 8, SQLite). Not part of `npm test`.
import { performance } from "node:perf_hooks";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { topicMinuteRowsMs, topicRetentionMs } from "@/lib/store/series";
import { decodePack, encodePack } from "@/lib/store/sample-pack";
import { stagedChunkSize, tiers } from "@/lib/store/tiers";
import { parseFlags } from "../args";
import type { HistoryProbe, HistorySizes, VacuumMode } from "./history-probe";
import { openPostgresProbe } from "./history-postgres-probe";
import { openSqliteProbe } from "./history-sqlite-probe";
import { toMiB } from "./stats";

const targetBytes = 2 * 1024 ** 3;
const targetPartitions = 100_000;
const targetDays = 7;
const hourMs = 3_600_000;
/** Hours a topic's row holds only its largest lag (series.ts). */
const compactedHours = (topicRetentionMs - topicMinuteRowsMs) / hourMs;
/** The pipeline prunes every 60th cycle (lib/pipeline/cycle-pipeline.ts). */
const pruneEveryCycles = 60;
/** 2025-01-15 00:00 UTC: the simulated day starts on an hour boundary. */
const start = Date.UTC(2025, 0, 15);
const fix = (value: number, digits: number): number => Number(value.toFixed(digits));
/** Measured at the end; partition_packs first (its row overhead is extrapolated). */
const measuredTables = ["partition_packs", "partition_staged", "partition_series", "topic_hours"];

export interface HistorySizeOptions {
  store: "sqlite" | "postgres";
  /** PostgreSQL only (history-probe.ts). */
  vacuum: VacuumMode;
  partitions: number;
  /** Fraction of topics (whole topics) whose partitions move every cycle; the others never change. */
  active: number;
  hours: number;
  pollSeconds: number;
  partitionsPerTopic: number;
}

export interface HistorySizeReport extends HistorySizeOptions {
  cycles: number;
  wallSeconds: number;
  /** Partition samples written per cycle (median over the day) and the bytes of their staged cycle blobs. */
  rawRowsPerCycle: number;
  stagedBytesPerCycle: number;
  /** Raw packs written per 5-minute close (median): one per partition that changed in the bucket. */
  rollupRowsPer5Minutes: number;
  /**
   * Store time per cycle (wall, this process; SQLite runs on it, PostgreSQL beside it: the write, and the prune when
   * the cycle ran one): median, p95, max, ms.
   */
  writeMs: { median: number; p95: number; max: number };
  /** The 3 slowest cycles (cycle number, store time in ms): which close, pack or rollup they ran. */
  slowest: { cycle: number; ms: number }[];
  /** Rows and bytes (table + its indexes, dbstat; PostgreSQL: pg_total_relation_size) at the end of the run, per table. */
  tables: { name: string; rows: number; bytes: number; bytesPerRow: number }[];
  packParts: HistorySizes["packParts"];
  vacuumState: HistorySizes["vacuum"];
  /** partition_packs per tier at the end of the run: packs, points, blob bytes of a full pack (measured, or encoded when none). */
  packTiers: { tier: number; packs: number; points: number; payloadBytesPerPack: number; measured: boolean }[];
  fileBytes: number;
  /** Rows and bytes at 100,000 partitions × 7 days, steady state, at the same active fraction. */
  extrapolated: { table: string; rows: number; bytes: number }[];
  extrapolatedBytes: number;
  targetBytes: number;
}

/** One partition of the simulated flow: active ones advance 10 records a cycle, their lag wobbles. */
function makePartition(topic: string, partition: number): FlowPartition {
  return {
    topic, partition, targetTopic: `east.${topic}`, sourceConnector: "mm2-source", sourceTopicId: null,
    sourceLogStart: 0n, sourceLogEnd: 1_000_000n, sourceLeaderEpoch: 0, mm2Position: 1_000_000n, committedPosition: 1_000_000n,
    positionSource: "committed", targetLogStart: 0n, targetLogEnd: 1_000_000n, lag: 0n, offsetLag: 0n, lagBasis: "offsets",
    transactionMarkersSeen: false, targetDensityIssue: null, latestSync: null, oldestUnreplicatedTimestamp: null, unknown: null,
  };
}

function makeFlow(partitions: FlowPartition[]): Flow {
  return {
    id: "east->west", source: "east", target: "west", discoveredFrom: "connect",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: null, heartbeat: null },
    replicationPolicy: { kind: "default", separator: "." }, topicsFilter: ".*", groupsFilter: ".*", groupsExclude: "",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, warnings: [], excludedTopics: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" }, checkpointsTopic: "east.checkpoints.internal",
    partitions, checkpoints: [], heartbeat: { latestTimestamp: null, latencyMs: null },
    totals: { topics: 0, partitions: partitions.length, lag: 0n, unknownPositions: 0 }, errors: [],
  };
}

/** Partition i's values at cycle c when it moves every cycle (partitionSpec's columns; the run below writes them). */
function movingValues(i: number, c: number): bigint[] {
  const end = 1_000_000n + 10n * BigInt(c + 1);
  const lag = BigInt((c * 7 + i) % 13);
  return [0n, end, end - lag, end - lag, lag];
}

/**
 * Packs a moving partition holds per tier at steady state, at most: a pack goes at the first prune after its whole
 * bucket left the window (retention + pack + prune interval); the open pack is not written yet (raw: it is staged).
 */
function packsAtSteadyState(tier: number, hours: number, pollSeconds: number): number {
  const t = tiers[tier]!;
  const window = Math.min(hours * hourMs, t.retentionMs + t.packMs + pruneEveryCycles * pollSeconds * 1000);
  return Math.max(0, Math.ceil(window / t.packMs) - 1);
}

/** A full pack of a tier for a moving partition, encoded: its bytes when the run wrote none of that tier. */
function encodeFullPack(tier: number, pollSeconds: number): number {
  const t = tiers[tier]!;
  const spacing = t.widthMs === 0 ? pollSeconds * 1000 : t.widthMs;
  const step = spacing / (pollSeconds * 1000);
  const points = Array.from({ length: t.packMs / spacing }, (_, k) => ({ at: start + k * spacing, values: movingValues(7, (k + 1) * step - 1) }));
  return encodePack(points).length;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The store's probe: a scratch SQLite file, or a throwaway PostgreSQL server. */
function openProbe(o: HistorySizeOptions): Promise<HistoryProbe> {
  if (o.store === "postgres") return openPostgresProbe(measuredTables, compactedHours, hourMs, o.vacuum);
  return Promise.resolve(openSqliteProbe(measuredTables, compactedHours, hourMs));
}

export async function runHistorySize(o: HistorySizeOptions, log: (line: string) => void): Promise<HistorySizeReport> {
  const probe = await openProbe(o);
  try {
    const { store } = probe;
    const topics = Math.ceil(o.partitions / o.partitionsPerTopic);
    const activeTopics = Math.round(topics * o.active);
    const partitions = Array.from({ length: o.partitions }, (_, i) => makePartition(`t${Math.floor(i / o.partitionsPerTopic)}`, i % o.partitionsPerTopic));
    const isActive = (i: number) => Math.floor(i / o.partitionsPerTopic) < activeTopics;
    const cycles = Math.round((o.hours * 3600) / o.pollSeconds);
    const pollMs = o.pollSeconds * 1000;
    const rawCounts: number[] = [];
    const stagedBytes: number[] = [];
    const rollupCounts: number[] = [];
    const writeMs: number[] = [];
    const began = performance.now();
    for (let c = 0; c < cycles; c++) {
      const at = start + c * pollMs;
      for (let i = 0; i < partitions.length; i++) {
        if (!isActive(i) && c > 0) continue;
        const [, end, position, targetEnd, lag] = movingValues(i, c);
        partitions[i] = { ...partitions[i]!, sourceLogEnd: end!, mm2Position: position!, targetLogEnd: targetEnd!, lag: lag!, offsetLag: lag! };
      }
      const writeStart = performance.now();
      await store.recordFlowSamples([makeFlow(partitions)], at);
      const prunes = c % pruneEveryCycles === 1;
      if (prunes) await store.prune(at);
      writeMs.push(performance.now() - writeStart);
      // Not timed: what autovacuum does beside the server (PostgreSQL, --vacuum after-prune).
      if (prunes) await probe.afterPrune();
      if (c % 30 === 7) {
        const blobs = await probe.listStagedBlobs(at);
        rawCounts.push(blobs.reduce((n, b) => n + b.readUInt32LE(0), 0));
        stagedBytes.push(blobs.reduce((n, b) => n + b.length, 0));
      }
      // The bucket before the one that just closed: packed whole by now (its packing is spread over the next bucket).
      if (at % (5 * 60_000) === 0 && c > 30) rollupCounts.push(await probe.countRawPacks(at - 10 * 60_000));
      if (c % 1000 === 0) log(`  cycle ${c}/${cycles} (${fix((performance.now() - began) / 1000, 0)} s)`);
    }
    const wallSeconds = (performance.now() - began) / 1000;
    const sizes = await probe.measure();
    const { packRows, compactedTopicRow } = sizes;
    const tables = sizes.tables.map((t) => ({ ...t, bytesPerRow: fix(t.bytes / Math.max(1, t.rows), 1) }));
    const packTiers = tiers.map((_, tier) => {
      const own = packRows.filter((r) => r.tier === tier).map((r) => ({ bytes: r.data.length, points: decodePack(r.data, 5).length }));
      const points = own.reduce((n, r) => n + r.points, 0);
      // A moving partition's packs are the full ones (an idle partition's hold its one change).
      const most = own.reduce((n, r) => Math.max(n, r.points), 0);
      const full = own.filter((r) => r.points === most);
      const payload = full.reduce((n, r) => n + r.bytes, 0);
      if (own.length > 0) return { tier, packs: own.length, points, payloadBytesPerPack: fix(payload / full.length, 1), measured: true };
      return { tier, packs: 0, points: 0, payloadBytesPerPack: encodeFullPack(tier, o.pollSeconds), measured: false };
    });
    // A pack row's cost beyond its blob (key, index entry, page slack), from the measured table.
    const packTable = tables[0]!;
    const overheadPerPack = (packTable.bytes - packRows.reduce((n, r) => n + r.data.length, 0)) / Math.max(1, packTable.rows);
    const scale = targetPartitions / o.partitions;
    const units = o.partitions * scale;
    const activeUnits = units * (activeTopics / topics);
    // An idle partition keeps one pack: its newest daily pack, holding its one change (its value, carried forward).
    const idlePackBytes = encodePack([{ at: start, values: movingValues(7, 0) }]).length + overheadPerPack;
    const activePacksAt = (tier: number) => activeUnits * packsAtSteadyState(tier, targetDays * 24, o.pollSeconds);
    const packRowCount = tiers.reduce((sum, _, tier) => sum + activePacksAt(tier), units - activeUnits);
    const packBytes = tiers.reduce(
      (sum, _, tier) => sum + activePacksAt(tier) * (packTiers[tier]!.payloadBytesPerPack + overheadPerPack),
      (units - activeUnits) * idlePackBytes,
    );
    // Staged: at most one 5-minute bucket of cycles and the cycle that closes it, as measured per sample (a closed
    // bucket is packed a chunk at a time over the next 4 minutes: each packed chunk frees a bucket of cycles while the
    // open bucket gains one, so the peak stays at the close).
    const stagedCycles = tiers[0]!.packMs / pollMs + 1;
    const stagedBytesPerSample = median(stagedBytes) / Math.max(1, median(rawCounts));
    const topicUnits = topics * scale;
    const activeTopicUnits = topicUnits * (activeTopics / topics);
    const perRow = (name: string) => tables.find((t) => t.name === name)!.bytesPerRow;
    // A moving topic: a row per hour, its minutes for 24 h, then its largest lag alone; an idle one keeps its newest row.
    const minuteHours = topicMinuteRowsMs / hourMs;
    const topicRows = activeTopicUnits * (minuteHours + compactedHours) + (topicUnits - activeTopicUnits);
    const topicBytes =
      activeTopicUnits * (minuteHours * perRow("topic_hours") + compactedHours * compactedTopicRow) +
      (topicUnits - activeTopicUnits) * compactedTopicRow;
    const extrapolated = [
      { table: "partition_packs", rows: Math.round(packRowCount), bytes: Math.round(packBytes) },
      { table: "partition_staged", rows: Math.round(stagedCycles * Math.ceil(units / stagedChunkSize)), bytes: Math.round(stagedCycles * activeUnits * stagedBytesPerSample) },
      { table: "partition_series", rows: Math.round(units), bytes: Math.round(units * perRow("partition_series")) },
      { table: "topic_hours", rows: Math.round(topicRows), bytes: Math.round(topicBytes) },
    ];
    const sortedWrites = [...writeMs].sort((a, b) => a - b);
    const slowest = writeMs.map((ms, cycle) => ({ cycle, ms: fix(ms, 1) })).sort((a, b) => b.ms - a.ms).slice(0, 3);
    return {
      ...o,
      cycles,
      wallSeconds: fix(wallSeconds, 1),
      rawRowsPerCycle: median(rawCounts),
      stagedBytesPerCycle: median(stagedBytes),
      rollupRowsPer5Minutes: median(rollupCounts),
      writeMs: { median: fix(median(writeMs), 2), p95: fix(sortedWrites[Math.floor(sortedWrites.length * 0.95)] ?? 0, 2), max: fix(sortedWrites.at(-1) ?? 0, 2) },
      slowest,
      tables,
      packTiers,
      packParts: sizes.packParts,
      vacuumState: sizes.vacuum,
      fileBytes: sizes.fileBytes,
      extrapolated,
      extrapolatedBytes: extrapolated.reduce((sum, e) => sum + e.bytes, 0),
      targetBytes,
    };
  } finally {
    await probe.dispose();
  }
}

const packRowsOf = (r: HistorySizeReport) => r.tables.find((t) => t.name === "partition_packs")?.rows ?? 0;

function renderVacuum(v: NonNullable<HistorySizeReport["vacuumState"]>): string {
  const who = v.mode === "after-prune" ? "the bench ran VACUUM after each prune" : "left to autovacuum";
  return `    vacuum (${who}): ${v.tables.map((t) => `${t.name} ${t.autovacuums} autovacuums, ${t.vacuums} VACUUMs, ${t.deadTuples} dead tuples at the end`).join("; ")}`;
}

export function renderHistorySize(r: HistorySizeReport): string {
  const lines = [
    `history size: ${r.partitions} partitions (${r.partitionsPerTopic} per topic), ${fix(r.active * 100, 0)} % of topics moving every cycle, ` +
      `${r.hours} h at a ${r.pollSeconds} s poll = ${r.cycles} cycles written back-to-back in ${r.wallSeconds} s (${r.store === "postgres" ? "PostgreSQL" : "SQLite"})`,
    `  partition samples written per cycle: ${r.rawRowsPerCycle} (of ${r.partitions}) in ${r.stagedBytesPerCycle} B of staged blobs; ` +
      `raw packs per 5-minute close: ${r.rollupRowsPer5Minutes}`,
    `  store time per cycle (write + prune): ${r.writeMs.median} ms median, ${r.writeMs.p95} ms p95, ${r.writeMs.max} ms max; ` +
      `slowest cycles ${r.slowest.map((w) => `${w.cycle} (${w.ms} ms)`).join(", ")} (cycle 0 writes every partition)`,
    `  after ${r.hours} h: file ${fix(toMiB(r.fileBytes), 1)} MiB`,
    ...r.tables.map((t) => `    ${t.name.padEnd(18)} ${String(t.rows).padStart(11)} rows ${fix(toMiB(t.bytes), 1).toString().padStart(9)} MiB  ${t.bytesPerRow} B/row`),
    `    partition_packs per row: ${r.packParts.map((p) => `${p.name} ${fix(p.bytes / Math.max(1, packRowsOf(r)), 1)} B`).join(", ")}`,
    ...(r.vacuumState === null ? [] : [renderVacuum(r.vacuumState)]),
    ...r.packTiers.map(
      (t) => `    tier ${t.tier} packs: ${t.packs} holding ${t.points} points, ${t.payloadBytesPerPack} B of blob per full pack${t.measured ? "" : " (none written yet: a full pack, encoded)"}`,
    ),
    `  extrapolated to ${targetPartitions} partitions × ${targetDays} days (steady-state packs per tier × (blob + measured row overhead); ` +
      `staged blobs and series rows × measured bytes; topic hour rows × measured bytes, written or compacted):`,
    ...r.extrapolated.map((e) => `    ${e.table.padEnd(18)} ${String(e.rows).padStart(11)} rows ${fix(toMiB(e.bytes), 0).toString().padStart(9)} MiB`),
    `  total ${fix(r.extrapolatedBytes / 1024 ** 3, 2)} GiB (target ≤ ${fix(r.targetBytes / 1024 ** 3, 0)} GiB): ${r.extrapolatedBytes <= r.targetBytes ? "met" : "NOT met"}`,
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const num = (name: string, fallback: number) => (typeof flags[name] === "string" ? Number(flags[name]) : fallback);
  const store = flags.store === "postgres" ? "postgres" : "sqlite";
  const vacuum = flags.vacuum === "auto" ? "auto" : "after-prune";
  const report = await runHistorySize(
    { store, vacuum, partitions: num("partitions", 10_000), active: num("active", 0.3), hours: num("hours", 24), pollSeconds: num("poll-seconds", 10), partitionsPerTopic: num("partitions-per-topic", 20) },
    (line) => process.stdout.write(`${line}\n`),
  );
  process.stdout.write(`${renderHistorySize(report)}\n`);
}

if (process.argv[1]?.endsWith("history-size.ts")) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
