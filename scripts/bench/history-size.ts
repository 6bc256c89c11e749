// History size (issue 12 item 4): a simulated day of cycles written back-to-back through the real SQLite Store, with
// simulated clock times (the store's `at` comes from the caller), then the bytes per row of each table (dbstat) ×
// the rows each tier holds at steady state, extrapolated to 100,000 partitions × 7 days, next to the 2 GB target.
//   node_modules/.bin/tsx scripts/bench/history-size.ts --partitions 10000 --active 0.3 --hours 24
// Used by `npm run bench` (phase 8). Not part of `npm test`.
import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { createSqliteStore } from "@/lib/store";
import { topicMinuteRowsMs, topicRetentionMs } from "@/lib/store/series";
import { tiers } from "@/lib/store/tiers";
import { parseFlags } from "../args";
import { toMiB } from "./stats";

const targetBytes = 2 * 1024 ** 3;
const targetPartitions = 100_000;
const targetDays = 7;
const hourMs = 3_600_000;
/** The pipeline prunes every 60th cycle (lib/pipeline/cycle-pipeline.ts). */
const pruneEveryCycles = 60;
/** 2025-01-15 00:00 UTC: the simulated day starts on an hour boundary. */
const start = Date.UTC(2025, 0, 15);
const fix = (value: number, digits: number): number => Number(value.toFixed(digits));

export interface HistorySizeOptions {
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
  /** Partition rows written per cycle (raw tier, median over the day), and the rollup rows per 5-minute close. */
  rawRowsPerCycle: number;
  rollupRowsPer5Minutes: number;
  /** Rows and bytes (table + its indexes, dbstat) at the end of the run, per table, and the rows the tier arithmetic expects. */
  tables: { name: string; rows: number; expectedRows: number; bytes: number; bytesPerRow: number }[];
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

/** Rows each table holds per partition (or topic) at steady state after `hours`: active, idle. */
function rowsAtSteadyState(table: string, hours: number, o: HistorySizeOptions): { perActive: number; perIdle: number; perTopic: boolean } {
  const cyclesPerHour = 3600 / o.pollSeconds;
  const window = (retentionMs: number) => Math.min(hours * hourMs, retentionMs);
  if (table === "partition_points") {
    // Raw rows wait up to one prune interval past their hour.
    const raw = (window(tiers[0]!.retentionMs + pruneEveryCycles * o.pollSeconds * 1000) / hourMs) * cyclesPerHour;
    const coarse = tiers.slice(1).reduce((sum, t) => sum + window(t.retentionMs) / t.widthMs, 0);
    // An idle partition's one change (the first cycle) sits in each tier until that tier's window passes it.
    const idle = tiers.filter((t, tier) => tier === tiers.length - 1 || hours * hourMs <= t.retentionMs).length;
    return { perActive: raw + coarse, perIdle: idle, perTopic: false };
  }
  if (table === "topic_minutes") {
    const minutes = window(topicMinuteRowsMs) / 60_000;
    const hoursBeyond = Math.max(0, window(topicRetentionMs) - topicMinuteRowsMs) / hourMs;
    return { perActive: minutes + hoursBeyond, perIdle: 1, perTopic: true };
  }
  return { perActive: 1, perIdle: 1, perTopic: false };
}

export async function runHistorySize(o: HistorySizeOptions, log: (line: string) => void): Promise<HistorySizeReport> {
  // On tmpfs when there is one: the run measures sizes (the same pages on any disk), not a shared disk's fsyncs.
  const dir = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "gapwatch-history-"));
  const file = path.join(dir, "history.db");
  try {
    const store = createSqliteStore(file);
    const topics = Math.ceil(o.partitions / o.partitionsPerTopic);
    const activeTopics = Math.round(topics * o.active);
    const partitions = Array.from({ length: o.partitions }, (_, i) => makePartition(`t${Math.floor(i / o.partitionsPerTopic)}`, i % o.partitionsPerTopic));
    const isActive = (i: number) => Math.floor(i / o.partitionsPerTopic) < activeTopics;
    const cycles = Math.round((o.hours * 3600) / o.pollSeconds);
    const pollMs = o.pollSeconds * 1000;
    const counter = new Database(file, { readonly: true });
    const rawAt = counter.prepare("SELECT COUNT(*) FROM partition_points WHERE tier = 0 AND at = ?").pluck();
    const tierAt = counter.prepare("SELECT COUNT(*) FROM partition_points WHERE tier = 1 AND at = ?").pluck();
    const rawCounts: number[] = [];
    const rollupCounts: number[] = [];
    const began = performance.now();
    for (let c = 0; c < cycles; c++) {
      const at = start + c * pollMs;
      for (let i = 0; i < partitions.length; i++) {
        if (!isActive(i) && c > 0) continue;
        const p = partitions[i]!;
        const end = p.sourceLogEnd! + 10n;
        const lag = BigInt((c * 7 + i) % 13);
        partitions[i] = { ...p, sourceLogEnd: end, mm2Position: end - lag, targetLogEnd: end - lag, lag, offsetLag: lag };
      }
      await store.recordFlowSamples([makeFlow(partitions)], at);
      if (c % pruneEveryCycles === 1) await store.prune(at);
      if (c % 30 === 7) rawCounts.push(rawAt.get(at) as number);
      if (at % (5 * 60_000) === 0 && c > 0) rollupCounts.push(tierAt.get(at - 5 * 60_000) as number);
      if (c % 1000 === 0) log(`  cycle ${c}/${cycles} (${fix((performance.now() - began) / 1000, 0)} s)`);
    }
    const wallSeconds = (performance.now() - began) / 1000;
    await store.close();
    counter.close();
    const db = new Database(file);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const bytesByName = new Map((db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[]).map((r) => [r.name, r.bytes]));
    const indexesOf = (table: string) =>
      (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").pluck().all(table) as string[]);
    const tables = ["partition_points", "partition_series", "topic_minutes"].map((name) => {
      const rows = db.prepare(`SELECT COUNT(*) FROM ${name}`).pluck().get() as number;
      const bytes = [name, ...indexesOf(name)].reduce((sum, n) => sum + (bytesByName.get(n) ?? 0), 0);
      return { name, rows, bytes, bytesPerRow: fix(bytes / Math.max(1, rows), 1) };
    });
    db.close();
    /** The rows the tier arithmetic gives a table after `hours`, at `scale` times the simulated size. */
    const expectRows = (table: string, hours: number, scale: number) => {
      const steady = rowsAtSteadyState(table, hours, o);
      const units = (steady.perTopic ? topics : o.partitions) * scale;
      const activeUnits = units * (activeTopics / topics);
      return Math.round(activeUnits * steady.perActive + (units - activeUnits) * steady.perIdle);
    };
    const measured = tables.map((t) => ({ ...t, expectedRows: expectRows(t.name, o.hours, 1) }));
    const scale = targetPartitions / o.partitions;
    const extrapolated = tables.map((t) => {
      const rows = expectRows(t.name, targetDays * 24, scale);
      return { table: t.name, rows, bytes: Math.round(rows * t.bytesPerRow) };
    });
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return {
      ...o,
      cycles,
      wallSeconds: fix(wallSeconds, 1),
      rawRowsPerCycle: sorted(rawCounts)[Math.floor(rawCounts.length / 2)] ?? 0,
      rollupRowsPer5Minutes: sorted(rollupCounts)[Math.floor(rollupCounts.length / 2)] ?? 0,
      tables: measured,
      fileBytes: statSync(file).size,
      extrapolated,
      extrapolatedBytes: extrapolated.reduce((sum, e) => sum + e.bytes, 0),
      targetBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderHistorySize(r: HistorySizeReport): string {
  const lines = [
    `history size: ${r.partitions} partitions (${r.partitionsPerTopic} per topic), ${fix(r.active * 100, 0)} % of topics moving every cycle, ` +
      `${r.hours} h at a ${r.pollSeconds} s poll = ${r.cycles} cycles written back-to-back in ${r.wallSeconds} s (SQLite)`,
    `  partition rows written per cycle: ${r.rawRowsPerCycle} (of ${r.partitions}); rollup rows per 5-minute close: ${r.rollupRowsPer5Minutes}`,
    `  after ${r.hours} h: file ${fix(toMiB(r.fileBytes), 1)} MiB`,
    ...r.tables.map((t) => `    ${t.name.padEnd(18)} ${String(t.rows).padStart(11)} rows (tier arithmetic: ${t.expectedRows}) ${fix(toMiB(t.bytes), 1).toString().padStart(9)} MiB  ${t.bytesPerRow} B/row`),
    `  extrapolated to ${targetPartitions} partitions × ${targetDays} days (steady-state rows per tier × measured bytes per row):`,
    ...r.extrapolated.map((e) => `    ${e.table.padEnd(18)} ${String(e.rows).padStart(11)} rows ${fix(toMiB(e.bytes), 0).toString().padStart(9)} MiB`),
    `  total ${fix(r.extrapolatedBytes / 1024 ** 3, 2)} GiB (target ≤ ${fix(r.targetBytes / 1024 ** 3, 0)} GiB): ${r.extrapolatedBytes <= r.targetBytes ? "met" : "NOT met"}`,
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const num = (name: string, fallback: number) => (typeof flags[name] === "string" ? Number(flags[name]) : fallback);
  const report = await runHistorySize(
    { partitions: num("partitions", 10_000), active: num("active", 0.3), hours: num("hours", 24), pollSeconds: num("poll-seconds", 10), partitionsPerTopic: num("partitions-per-topic", 20) },
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
