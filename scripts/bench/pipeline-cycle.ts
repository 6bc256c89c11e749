// The server's whole cycle pipeline at scale: CyclePipeline.processCycle (translation, detectors, alert
// service, store writes, metrics, read model) over the synthetic world of pipeline-compute.ts, on a fresh
// SQLite file or a throwaway PostgreSQL (lib/sandbox/postgres.ts). The collector's buildFlow is not timed.
//   node_modules/.bin/tsx scripts/bench/pipeline-cycle.ts --partitions 10000 --store sqlite --cycles 20
//   node_modules/.bin/tsx scripts/bench/pipeline-cycle.ts --store postgres   # 10k and 100k, each in its own process
// Used by `npm run bench` (phase 7). Not part of `npm test`.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createAlertService } from "@/lib/alerts/alert-service";
import { countFlowPartitions } from "@/lib/collector/flow-rows";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { decodeReadModel, publishReadModel } from "@/lib/pipeline/published-read-models";
import { startPostgres } from "@/lib/sandbox/postgres";
import { createPostgresStore, createSqliteStore, type Store } from "@/lib/store";
import { parseFlags } from "../args";
import { resultPrefix, runResultChild } from "./result-child";
import { readSnapshotFixture } from "./snapshot-fixture";
import { cpuMsSince, type Distribution, round, summarize, toMiB } from "./stats";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

const flowId = "east->west";
/** Issue 12 item 3: what one cycle may cost at 100,000 partitions. */
const cycleTargets = { cpuMsPerCycle: 250, rssMiB: 600 };

type StoreKind = "sqlite" | "postgres";

/** One size on one store: per measured cycle (after warm-up), and the store at the end. */
export interface CycleSizeResult {
  store: StoreKind;
  partitions: number;
  warmupCycles: number;
  cycles: number;
  /** process.cpuUsage around processCycle: this process only (a PostgreSQL server's own CPU is not in it). */
  cpuMs: Distribution;
  wallMs: Distribution;
  /** Wall time with a Store call in flight (timing wrappers around each method; SQLite's run on this thread). */
  storeWallMs: Distribution;
  storeCallsPerCycle: number;
  /** Rows handed to the store per cycle: flow partitions, translation samples, alerts, events, values (median). */
  storeRowsPerCycle: number;
  /** Store calls that failed during the run (the pipeline logs and swallows them). */
  storeErrors: number;
  /** Alerts after the last cycle. */
  alerts: number;
  /**
   * The read model's publication after each cycle (what a collector does next: encode, then the store's write of
   * the row web instances read), timed apart from processCycle. Absent from versions whose bench did not time it.
   */
  publishCpuMs?: Distribution;
  /**
   * What a web instance does with each published row (PublishedReadModels): the store's read of it, then its decode
   * (decodeReadModel: the small parts at once, each long array when first read). Absent from older versions' runs.
   */
  webReadCpuMs?: Distribution;
  webDecodeCpuMs?: Distribution;
  webDecodeWallMs?: Distribution;
  peakRssMiB: number;
  /** SQLite: the file plus its WAL; PostgreSQL: pg_database_size. */
  storeSizeMiB: number;
}

export interface PipelineCycleReport {
  sizes: CycleSizeResult[];
}

/** Running totals of the store's calls, reset per cycle. */
interface StoreTally {
  /** Time with at least one call in flight (calls that overlap, e.g. under Promise.all, count once). */
  wallMs: number;
  calls: number;
  rows: number;
  errors: number;
  inFlight: number;
  busySince: number;
}

/** Rows one call hands over, for the methods a cycle writes with; other calls count 0. */
function countRows(method: string, args: unknown[]): number {
  const [first, second] = args;
  // Counted from the flow's rows: reading `flow.partitions` would make every partition object, in the timed cycle.
  if (method === "recordFlowSamples") return (first as Snapshot["flows"]).reduce((sum, f) => sum + countFlowPartitions(f), 0);
  if (method === "recordTranslationSamples") return (second as unknown[]).length;
  if (method === "saveAlerts") return (first as unknown[]).length;
  if (method === "appendOffsetSyncs") return (args[3] as unknown[]).length;
  if (method === "appendCheckpoints") return (second as unknown[]).length;
  if (method === "appendEvent" || method === "setValue") return 1;
  return 0;
}

/** The store with every method timed into `tally` (the bench's view; lib is untouched). */
function timeStore(store: Store, tally: StoreTally): Store {
  const timed: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    timed[name] = async (...args: unknown[]) => {
      if (tally.inFlight++ === 0) tally.busySince = performance.now();
      tally.calls++;
      tally.rows += countRows(name, args);
      try {
        return await fn(...args);
      } catch (err) {
        tally.errors++;
        throw err;
      } finally {
        if (--tally.inFlight === 0) tally.wallMs += performance.now() - tally.busySince;
      }
    };
  }
  return timed as unknown as Store;
}

/** An open store: a fresh SQLite file, or the PostgreSQL at `url`; with what measures its size and removes it. */
async function openBenchStore(url: string | null): Promise<{ store: Store; sizeBytes: () => Promise<number>; dispose: () => Promise<void> }> {
  if (url === null) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-cycle-bench-"));
    const file = path.join(dir, "gapwatch.db");
    const size = (f: string) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    return { store: createSqliteStore(file), sizeBytes: async () => size(file) + size(`${file}-wal`), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const sizeBytes = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const res = await client.query<{ size: string }>("SELECT pg_database_size(current_database())::text AS size");
      return Number(res.rows[0]?.size ?? 0);
    } finally {
      await client.end();
    }
  };
  return { store: createPostgresStore(url), sizeBytes, dispose: async () => undefined };
}

/**
 * Runs `warmup` + `cycles` cycles of the real CyclePipeline at `partitions` flow partitions in this process:
 * each cycle the world advances and buildFlow builds its flow (not measured), then processCycle is timed
 * (CPU: process.cpuUsage, user + system; wall: performance.now) with its store calls timed apart.
 */
async function measurePipelineCycle(kind: StoreKind, url: string | null, partitions: number, cycles: number, warmup: number, log: (line: string) => void): Promise<CycleSizeResult> {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history = { offsetSyncs: world.syncs };
  const opened = await openBenchStore(url);
  const store = opened.store;
  try {
    const tally: StoreTally = { wallMs: 0, calls: 0, rows: 0, errors: 0, inFlight: 0, busySince: 0 };
    const config = configSchema.parse({
      clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
      pollIntervalSeconds: cycleMs / 1000,
      store: url === null ? { kind: "sqlite" } : { kind: "postgres", url },
    });
    const timedStore = timeStore(store, tally);
    const alerts = createAlertService(timedStore, config);
    const pipeline = new CyclePipeline(config, timedStore, alerts);
    const cpu: number[] = [];
    const wall: number[] = [];
    const storeWall: number[] = [];
    const calls: number[] = [];
    const rows: number[] = [];
    const publishCpu: number[] = [];
    const web = { readCpu: [] as number[], decodeCpu: [] as number[], decodeWall: [] as number[] };
    let previous: Snapshot | null = null;
    let alertCount = 0;
    log(`${world.flowPartitions} flow partitions, ${world.groups} groups on ${world.groupPartitions} group partitions, store ${kind}`);
    for (let c = 1; c <= warmup + cycles; c++) {
      const now = world.base.takenAt + c * cycleMs;
      const current = snapshotCycle(world, c, now, previous);
      Object.assign(tally, { wallMs: 0, calls: 0, rows: 0 });
      const t = process.cpuUsage();
      const start = performance.now();
      const model = await pipeline.processCycle(current, previous, history);
      const wallMs = performance.now() - start;
      const cpuMs = cpuMsSince(t);
      alertCount = model.alerts.length;
      previous = current;
      const p = process.cpuUsage();
      await publishReadModel(store, "bench", model);
      const publishMs = cpuMsSince(p);
      const measured = c > warmup;
      if (measured) {
        cpu.push(cpuMs);
        wall.push(wallMs);
        storeWall.push(tally.wallMs);
        calls.push(tally.calls);
        rows.push(tally.rows);
        publishCpu.push(publishMs);
        await timeWebDecode(store, web);
      }
      log(
        `${measured ? "cycle" : "warm-up"} ${c}: ${fmt(cpuMs)} ms CPU, ${fmt(wallMs)} ms wall (store ${fmt(tally.wallMs)} ms, ` +
          `${tally.calls} calls, ${tally.rows} rows); publish ${fmt(publishMs)} ms CPU; ${alertCount} alerts; RSS ${fmt(toMiB(process.memoryUsage().rss))} MiB`,
      );
    }
    alerts.stop();
    return {
      store: kind,
      partitions: world.flowPartitions,
      warmupCycles: warmup,
      cycles,
      cpuMs: summarize(cpu),
      wallMs: summarize(wall),
      storeWallMs: summarize(storeWall),
      storeCallsPerCycle: summarize(calls).median,
      storeRowsPerCycle: summarize(rows).median,
      storeErrors: tally.errors,
      alerts: alertCount,
      publishCpuMs: summarize(publishCpu),
      webReadCpuMs: summarize(web.readCpu),
      webDecodeCpuMs: summarize(web.decodeCpu),
      webDecodeWallMs: summarize(web.decodeWall),
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      storeSizeMiB: toMiB(await opened.sizeBytes()),
    };
  } finally {
    await store.close();
    await opened.dispose();
  }
}

/** Measures each run (a size on a store) in a child process of its own (a clean heap and an honest peak RSS). */
export async function runPipelineCycle(opts: {
  runs: { store: StoreKind; partitions: number }[];
  cycles: number;
  log: (line: string) => void;
  /** Another checkout to measure (the previous version); this one by default. */
  root?: string;
}): Promise<PipelineCycleReport> {
  const sizes: CycleSizeResult[] = [];
  for (const { store, partitions } of opts.runs) {
    opts.log(`-- ${partitions} partitions, ${store}`);
    const run = (url: string | null) => runChild(store, url, partitions, opts.cycles, opts.log, opts.root);
    sizes.push(store === "sqlite" ? await run(null) : await runWithPostgres(run));
  }
  return { sizes };
}

/**
 * Runs `body` against a throwaway PostgreSQL started here (not in the child: tsx's child processes die on a signal
 * before their handlers run), stopped by PID afterwards, and on SIGINT/SIGTERM before this process exits.
 */
async function runWithPostgres<T>(body: (url: string) => Promise<T>): Promise<T> {
  const starting = startPostgres();
  const stop = () => void starting.then((s) => s.stop()).finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const server = await starting;
  try {
    return await body(server.url);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await server.stop();
  }
}

function runChild(store: StoreKind, url: string | null, partitions: number, cycles: number, log: (line: string) => void, root?: string): Promise<CycleSizeResult> {
  const args = ["--store", store, "--partitions", String(partitions), "--cycles", String(cycles), "--child", ...(url === null ? [] : ["--url", url])];
  return runResultChild<CycleSizeResult>("pipeline-cycle.ts", args, `pipeline-cycle at ${partitions} partitions (${store})`, log, process.env, root);
}

/** The summary table of every size, with the targets of issue 12. */
export function renderPipelineCycle(report: PipelineCycleReport): string {
  const p = (d: Distribution) => `${fmt(d.median)}/${fmt(d.p95)}`;
  const rows = report.sizes.map((s) => [
    `${s.partitions} ${s.store}`,
    `${s.cycles}+${s.warmupCycles}`,
    p(s.cpuMs),
    p(s.wallMs),
    p(s.storeWallMs),
    `${s.storeCallsPerCycle} / ${s.storeRowsPerCycle}`,
    s.storeErrors,
    s.alerts,
    s.publishCpuMs === undefined ? "—" : p(s.publishCpuMs),
    s.webDecodeWallMs === undefined ? "—" : p(s.webDecodeWallMs),
    fmt(s.peakRssMiB),
    fmt(s.storeSizeMiB),
  ]);
  const headers = ["partitions store", "cycles+warm-up", "CPU ms p50/p95", "wall ms p50/p95", "store wall ms p50/p95", "store calls / rows per cycle", "store errors", "alerts", "publish CPU ms p50/p95",
    "web decode ms p50/p95", "peak RSS MiB", "store MiB"];
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const table = cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
  return `${table}\nTargets at 100,000 partitions: < ${cycleTargets.cpuMsPerCycle} ms CPU per cycle, < ${cycleTargets.rssMiB} MiB RSS (issue 12 item 3); a web instance's decode of the published model < 100 ms (issue 32).`;
}

function fmt(value: number): string {
  return String(round(value) ?? "—");
}

function readStoreKind(value: string | undefined): StoreKind {
  if (value === undefined || value === "sqlite" || value === "postgres") return value ?? "sqlite";
  throw new Error(`--store must be sqlite or postgres, got "${value}"`);
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const store = readStoreKind(flags.store);
  const cycles = Number(flags.cycles ?? 20);
  if (flags.child === "true" && flags.partitions !== undefined) {
    if (store === "postgres" && flags.url === undefined) throw new Error("a postgres child needs --url");
    const result = await measurePipelineCycle(store, flags.url ?? null, Number(flags.partitions), cycles, Number(flags.warmup ?? 3), say);
    say(`${resultPrefix}${JSON.stringify(result)}`);
    return;
  }
  const sizes = (flags.partitions ?? "10000,100000").split(",").map(Number);
  const report = await runPipelineCycle({ runs: sizes.map((partitions) => ({ store, partitions })), cycles, log: say });
  say(`\n${renderPipelineCycle(report)}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`pipeline-cycle failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** A web instance's part of a publication: the row read from the store, then decoded (as PublishedReadModels does). */
async function timeWebDecode(store: Store, into: { readCpu: number[]; decodeCpu: number[]; decodeWall: number[] }): Promise<void> {
  const r = process.cpuUsage();
  const row = await store.readReadModel("bench");
  into.readCpu.push(cpuMsSince(r));
  if (row === null) throw new Error("the published read model was not found right after its publication");
  const d = process.cpuUsage();
  const start = performance.now();
  await decodeReadModel(row.body);
  into.decodeWall.push(performance.now() - start);
  into.decodeCpu.push(cpuMsSince(d));
}
