// The cycle pipeline's pure computation at scale: CPU per cycle of buildFlow, runDetectors and the
// flow translation (translateSnapshotFlow + TRANSLATION_ERROR + CHECKPOINT_STALE) over a synthetic
// world scaled from a real sandbox snapshot (bench/fixtures/sandbox-snapshot.json; synthetic-world.ts).
//   node_modules/.bin/tsx scripts/bench/pipeline-compute.ts --partitions 100000 --cycles 20
//   node_modules/.bin/tsx scripts/bench/pipeline-compute.ts        # 10k, 100k, 1M, each in its own process
// Used by `npm run bench` (phase 5). Not part of `npm test`.
import path from "node:path";
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import { createDetectorMemory, createMemoryPersister, defaultThresholds, type FindingTypeName, runDetectors } from "@/lib/detect";
import { repoRoot } from "@/lib/sandbox/paths";
import { SyncModelCache, translateSnapshotFlow } from "@/lib/translation";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { detectTranslationErrors } from "@/lib/detect/translation-detectors";
import { parseFlags } from "../args";
import { collectGarbage } from "./gc";
import { resultPrefix, runResultChild } from "./result-child";
import { readSnapshotFixture, sandboxFixturePath } from "./snapshot-fixture";
import { cpuMsSince, type Distribution, round, summarize, toMiB } from "./stats";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const flowId = "east->west";
/** Heap limit of the 1,000,000-partition child. */
const millionHeapMiB = 12_288;

/** One size: CPU per measured cycle (median of the cycles after warm-up), memory, what was found. */
export interface ComputeSizeResult {
  partitions: number;
  topics: number;
  groups: number;
  groupPartitions: number;
  warmupCycles: number;
  cycles: number;
  buildFlowCpuMs: Distribution;
  detectorsCpuMs: Distribution;
  translationCpuMs: Distribution;
  totalCpuMs: Distribution;
  /** CPU of listing the memory's changes (createMemoryPersister: detector sections and checkpoint watch), per measured cycle. */
  persistCpuMs: Distribution;
  /** Entries and KiB the detector memory (all but the watch) writes per measured cycle (median), and its whole JSON at the end. */
  memoryChangedEntries: number;
  memoryChangedKiB: number;
  memoryJsonKiB: number;
  /** Entries and KiB of the checkpoint watch's `watch|` entries written per measured cycle (median), and its whole JSON at the end. */
  watchChangedEntries: number;
  watchChangedKiB: number;
  checkpointWatchJsonKiB: number;
  /** Findings of the last cycle by type (detectors and translation). */
  findings: Partial<Record<FindingTypeName, number>>;
  /** Heap in use after a forced GC at the end (world, two snapshots, memory and caches alive). */
  heapAfterGcMiB: number;
  peakHeapMiB: number;
  peakRssMiB: number;
}

/** Every size, and how the largest grew against the 100k one. */
export interface PipelineComputeReport {
  fixture: string;
  sizes: ComputeSizeResult[];
  /** 1M / 100k: median total CPU per cycle, and heap after GC (10 = linear). */
  growth: { cpu: number; heap: number } | null;
}

/**
 * Runs `cycles` measured cycles (after `warmup`) at `partitions` flow partitions in this process.
 * Each cycle: the world advances (not measured), then buildFlow, runDetectors and the translation
 * run as the pipeline runs them, each timed with process.cpuUsage (user + system, all threads: GC included).
 */
function measurePipelineCompute(partitions: number, cycles: number, warmup: number, log: (line: string) => void): ComputeSizeResult {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history = { offsetSyncs: world.syncs };
  const cache = new SyncModelCache();
  const limits = { replayRecords: defaultThresholds.translationReplayRecords, checkpointStaleMs: defaultThresholds.checkpointStaleMs };
  let memory = createDetectorMemory();
  const persister = createMemoryPersister();
  const watch = new CheckpointWatchState();
  let previous: Snapshot | null = null;
  const build: number[] = [];
  const detect: number[] = [];
  const translate: number[] = [];
  const total: number[] = [];
  const persist: number[] = [];
  const changedEntries: number[] = [];
  const changedBytes: number[] = [];
  const watchEntries: number[] = [];
  const watchBytes: number[] = [];
  let findings: Partial<Record<FindingTypeName, number>> = {};
  let memoryBytes = 0;
  let watchJsonBytes = 0;
  let peakHeap = 0;
  log(`${world.flowPartitions} flow partitions in ${world.topics} topics, ${world.groups} groups on ${world.groupPartitions} group partitions`);
  for (let c = 1; c <= warmup + cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const { clusters, readings } = world.advance(c, now);
    const before = previous?.flows[0];

    let t = process.cpuUsage();
    const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
    const buildMs = cpuMsSince(t);
    const current: Snapshot = { ...world.base, cycle: c, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };

    t = process.cpuUsage();
    const out = runDetectors({ previous, current, history, memory, now, thresholds: defaultThresholds });
    const detectMs = cpuMsSince(t);

    t = process.cpuUsage();
    const ft = translateSnapshotFlow(current, flow, history.offsetSyncs, now, { cache });
    cache.endCycle();
    const errors = detectTranslationErrors(ft, now, limits);
    // As the translation rule runs it (lib/detect/translation-rule.ts): the watch judged in place.
    const stale = watch.judge(ft, now, limits);
    const translateMs = cpuMsSince(t);

    t = process.cpuUsage();
    const allChanges = persister.listChanges({ ...out.memory, checkpointWatch: watch }, now);
    const persistMs = cpuMsSince(t);

    const changes = allChanges.filter((e) => !e.key.startsWith("watch|"));
    const watchChanges = allChanges.filter((e) => e.key.startsWith("watch|"));
    memory = out.memory;
    if (c === warmup + cycles) {
      memoryBytes = JSON.stringify(memory).length;
      watchJsonBytes = JSON.stringify(Object.fromEntries(watch.entries())).length;
    }
    findings = countByType([...out.findings, ...errors, ...stale]);
    previous = current;
    const usage = process.memoryUsage();
    peakHeap = Math.max(peakHeap, usage.heapUsed);
    const measured = c > warmup;
    if (measured) {
      build.push(buildMs);
      detect.push(detectMs);
      translate.push(translateMs);
      total.push(buildMs + detectMs + translateMs);
      persist.push(persistMs);
      changedEntries.push(changes.length);
      changedBytes.push(changes.reduce((sum, e) => sum + e.key.length + (e.value?.length ?? 0), 0));
      watchEntries.push(watchChanges.length);
      watchBytes.push(watchChanges.reduce((sum, e) => sum + e.key.length + (e.value?.length ?? 0), 0));
    }
    log(
      `${measured ? "cycle" : "warm-up"} ${c}: buildFlow ${fmt(buildMs)} ms, runDetectors ${fmt(detectMs)} ms, translation ${fmt(translateMs)} ms, ` +
        `total ${fmt(buildMs + detectMs + translateMs)} ms CPU; memory changes ${changes.length} entries, watch ${watchChanges.length} (${fmt(persistMs)} ms); ` +
        `heap ${fmt(toMiB(usage.heapUsed))} MiB, RSS ${fmt(toMiB(usage.rss))} MiB`,
    );
  }
  collectGarbage();
  return {
    partitions: world.flowPartitions,
    topics: world.topics,
    groups: world.groups,
    groupPartitions: world.groupPartitions,
    warmupCycles: warmup,
    cycles,
    buildFlowCpuMs: summarize(build),
    detectorsCpuMs: summarize(detect),
    translationCpuMs: summarize(translate),
    totalCpuMs: summarize(total),
    persistCpuMs: summarize(persist),
    memoryChangedEntries: summarize(changedEntries).median,
    memoryChangedKiB: summarize(changedBytes).median / 1024,
    memoryJsonKiB: memoryBytes / 1024,
    watchChangedEntries: summarize(watchEntries).median,
    watchChangedKiB: summarize(watchBytes).median / 1024,
    checkpointWatchJsonKiB: watchJsonBytes / 1024,
    findings,
    heapAfterGcMiB: toMiB(process.memoryUsage().heapUsed),
    peakHeapMiB: toMiB(peakHeap),
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

/**
 * Measures each size in a child process of its own (a clean heap and an honest peak RSS): `cycles`
 * cycles after 3 warm-up cycles, the 1,000,000-partition size (if asked) `millionCycles` after 1.
 */
export async function runPipelineCompute(opts: {
  sizes: number[];
  cycles: number;
  millionCycles: number;
  log: (line: string) => void;
  /** Another checkout to measure (the previous version); this one by default. */
  root?: string;
}): Promise<PipelineComputeReport> {
  const sizes: ComputeSizeResult[] = [];
  for (const partitions of opts.sizes) {
    const million = partitions >= 1_000_000;
    opts.log(`-- ${partitions} partitions`);
    sizes.push(await runChild(partitions, million ? opts.millionCycles : opts.cycles, million ? 1 : 3, opts.log, opts.root));
  }
  const at = (n: number) => sizes.find((s) => s.partitions >= n * 0.99 && s.partitions < n * 1.1);
  const [big, mid] = [at(1_000_000), at(100_000)];
  const growth = big && mid ? { cpu: big.totalCpuMs.median / mid.totalCpuMs.median, heap: big.heapAfterGcMiB / mid.heapAfterGcMiB } : null;
  return { fixture: path.relative(repoRoot, sandboxFixturePath), sizes, growth };
}

function runChild(partitions: number, cycles: number, warmup: number, log: (line: string) => void, root?: string): Promise<ComputeSizeResult> {
  // 1,000,000 partitions hold about 8 GiB live (two snapshots, the detector memory, the sync models): past Node's default heap limit.
  const heap = partitions >= 1_000_000 ? ` --max-old-space-size=${millionHeapMiB}` : "";
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""}${heap}`.trim() };
  const args = ["--partitions", String(partitions), "--cycles", String(cycles), "--warmup", String(warmup), "--child"];
  return runResultChild<ComputeSizeResult>("pipeline-compute.ts", args, `pipeline-compute at ${partitions} partitions`, log, env, root);
}

/** The summary table of every size. */
export function renderPipelineCompute(report: PipelineComputeReport): string {
  const rows = report.sizes.map((s) => [
    s.partitions,
    `${s.groups}/${s.groupPartitions}`,
    `${s.cycles}+${s.warmupCycles}`,
    `${fmt(s.buildFlowCpuMs.median)}/${fmt(s.buildFlowCpuMs.p95)}`,
    `${fmt(s.detectorsCpuMs.median)}/${fmt(s.detectorsCpuMs.p95)}`,
    `${fmt(s.translationCpuMs.median)}/${fmt(s.translationCpuMs.p95)}`,
    `${fmt(s.totalCpuMs.median)}/${fmt(s.totalCpuMs.p95)}`,
    `${s.memoryChangedEntries} / ${fmt(s.memoryChangedKiB)} (${fmt(s.persistCpuMs.median)} ms)`,
    `${s.watchChangedEntries} / ${fmt(s.watchChangedKiB)}`,
    `${fmt(s.memoryJsonKiB)} / ${fmt(s.checkpointWatchJsonKiB)}`,
    `${fmt(s.heapAfterGcMiB)}/${fmt(s.peakHeapMiB)}`,
    fmt(s.peakRssMiB),
    Object.entries(s.findings).map(([type, n]) => `${type} ${n}`).join(", "),
  ]);
  const headers = ["partitions", "groups/group partitions", "cycles+warm-up", "buildFlow ms p50/p95", "runDetectors ms", "translation ms", "total CPU ms", "memory changes/cycle: entries / KiB (CPU)", "watch changes/cycle: entries / KiB", "whole memory / watch JSON KiB", "heap after GC/peak MiB", "peak RSS MiB", "findings (last cycle)"];
  const growth = report.growth ? `\n1M / 100k: CPU per cycle ×${fmt(report.growth.cpu)}, heap ×${fmt(report.growth.heap)} (×10 is linear)` : "";
  return `${formatRows(headers, rows)}${growth}`;
}

function formatRows(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
}

function countByType(findings: readonly { type: FindingTypeName }[]): Partial<Record<FindingTypeName, number>> {
  const counts: Partial<Record<FindingTypeName, number>> = {};
  for (const f of findings) counts[f.type] = (counts[f.type] ?? 0) + 1;
  return counts;
}

function fmt(value: number): string {
  return String(round(value) ?? "—");
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cycles = Number(flags.cycles ?? 20);
  if (flags.partitions !== undefined) {
    const result = measurePipelineCompute(Number(flags.partitions), cycles, Number(flags.warmup ?? 3), say);
    if (flags.child === "true") say(`${resultPrefix}${JSON.stringify(result)}`);
    else say(`\n${renderPipelineCompute({ fixture: "", sizes: [result], growth: null })}`);
    return;
  }
  const report = await runPipelineCompute({ sizes: [10_000, 100_000, 1_000_000], cycles, millionCycles: Number(flags["million-cycles"] ?? 3), log: say });
  say(`\n${renderPipelineCompute(report)}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((err: unknown) => {
    process.stderr.write(`pipeline-compute failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
