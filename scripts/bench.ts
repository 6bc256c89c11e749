// `npm run bench`: poll cost against partition count (vs a naive kafkajs poller), detection latency,
// API and page speed, and processing at 100,000 partitions (synthetic). Prints a table and writes
// JSON to .gapwatch/bench/. Not part of `npm test`. See README.md, "Benchmarks".
import path from "node:path";
import { findFreePort } from "@/lib/sandbox/free-port";
import { findPostgresBin } from "@/lib/sandbox/postgres";
import { gapwatchDir } from "@/lib/sandbox/paths";
import { parseFlags } from "./args";
import { createBenchRuntime } from "./bench/bench-collector";
import { createStoppedBenchConnector } from "./bench/bench-connector";
import { connectBenchAdmins, deleteTopicsMatching } from "./bench/bench-topics";
import { launchChromium } from "./bench/browser";
import { connectDashboard } from "./bench/dashboard-client";
import { measureMetricsScrapeSizes } from "./bench/metrics-scrape";
import { measureDetectionLatency, summarizeLatency } from "./bench/detection-latency";
import { runHttpPhase } from "./bench/http-phase";
import { connectNaivePoller } from "./bench/naive-poller";
import { runPollPhase } from "./bench/poll-phase";
import { type BenchReport, createReport, renderReport, writeReportFile } from "./bench/report";
import { type BenchResources, createResources, removeBenchConnector, stopResources } from "./bench/resources";
import { runPipelineCompute } from "./bench/pipeline-compute";
import { measureAuditCost } from "./bench/audit-cost";
import { runHistorySize } from "./bench/history-size";
import { runPipelineCycle } from "./bench/pipeline-cycle";
import { checkOutPreviousVersion, readPreviousRef, removePreviousVersion } from "./bench/previous-version";
import { judgeTargets } from "./bench/targets";
import { type Stack, startStack } from "./stack";

/** The dashboard's poll interval in the bench stack; detection latency counts a miss after 3 of them. */
const benchPollSeconds = 5;
const flowId = "east->west";
const say = (line: string) => process.stdout.write(`${line}\n`);

interface BenchOptions {
  sizes: number[];
  cycles: number;
  rounds: number;
  loadSeconds: number;
  syntheticPartitions: number;
  syntheticCycles: number;
  /** Also 1,000,000 partitions (3 cycles) in phase 5: the growth ratio against the 100k size. */
  syntheticMillion: boolean;
  /** `--only stack`: phases 1–4 (the running stack); `--only synthetic`: phases 5–9 (no stack); both by default. */
  stack: boolean;
  synthetic: boolean;
  /** The previous version to measure beside this one (phases 5 and 7), or null: bench/previous-version, --previous. */
  previous: string | null;
  /** `--phases 5,7`: only these of the synthetic phases 5–9 (all by default). */
  phases: ReadonlySet<number>;
}

/** Defaults are the full run; `--quick` is a smoke run of every phase at small sizes. */
function readOptions(argv: string[]): BenchOptions {
  const { flags } = parseFlags(argv);
  const quick = flags.quick === "true";
  const num = (name: string, full: number, small: number) => (flags[name] !== undefined ? Number(flags[name]) : quick ? small : full);
  const sizes = (flags.sizes ?? (quick ? "500,1000" : "1000,5000,10000")).split(",").map(Number);
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0)) throw new Error(`--sizes must be positive integers, got "${flags.sizes}"`);
  const only = flags.only ?? "";
  if (!["", "stack", "synthetic"].includes(only)) throw new Error(`--only must be "stack" (phases 1–4) or "synthetic" (phases 5–9), got "${only}"`);
  return {
    sizes,
    cycles: num("cycles", 20, 5),
    rounds: num("rounds", 5, 1),
    loadSeconds: num("load-seconds", 10, 3),
    syntheticPartitions: num("synthetic", 100_000, 20_000),
    syntheticCycles: num("synthetic-cycles", 20, 3),
    syntheticMillion: flags.million === undefined ? !quick : flags.million === "yes",
    stack: only !== "synthetic",
    synthetic: only !== "stack",
    previous: flags.previous === "none" ? null : (flags.previous ?? readPreviousRef()),
    phases: readSyntheticPhases(flags.phases),
  };
}

function readSyntheticPhases(value: string | undefined): ReadonlySet<number> {
  const phases = (value ?? "5,6,7,8,9").split(",").map(Number);
  if (phases.some((p) => !Number.isInteger(p) || p < 5 || p > 9)) throw new Error(`--phases takes synthetic phases 5–9, e.g. 5,7; got "${value}"`);
  return new Set(phases);
}

/** Runs one phase; a failure is recorded and the run goes on with the next phase. */
async function runPhase<T>(report: BenchReport, name: string, phase: () => Promise<T>): Promise<T | null> {
  const started = Date.now();
  say(`\n== ${name}`);
  try {
    const result = await phase();
    say(`== ${name} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return result;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    report.errors.push(`${name}: ${message}`);
    say(`== ${name} FAILED after ${((Date.now() - started) / 1000).toFixed(0)} s: ${message}`);
    return null;
  }
}

/**
 * The phases that need the running stack: poll cost (1+2), API and pages at the largest size (4),
 * then, with the benchmark topics removed, detection latency (3).
 */
async function measureWithStack(stack: Stack, res: BenchResources, opts: BenchOptions, report: BenchReport): Promise<void> {
  const state = stack.sandbox.state;
  const dashboard = await connectDashboard(`http://127.0.0.1:${new URL(stack.url).port}`, stack.adminSecret);
  const browser = (res.browser = await launchChromium(say));
  const admins = (res.admins = await connectBenchAdmins("east", state.clusters.east!.bootstrap, state.clusters.west!.bootstrap));
  // Before any benchmark topic exists, so MM2 never copies one of them.
  res.benchConnector = await createStoppedBenchConnector(state, "east", "west");
  const runtime = (res.runtime = createBenchRuntime(state));
  const collector = runtime.collector;
  const naive = (res.naive = await connectNaivePoller(state.clusters));

  report.pollCost =
    (await runPhase(report, "1+2. poll cost vs partition count, and the naive poller", () =>
      runPollPhase(admins, collector, naive, { sizes: opts.sizes, cycles: opts.cycles, naiveBudgetMs: 240_000, flowId, log: say }),
    )) ?? [];
  const largest = [...report.pollCost].reverse().find((s) => s.ours !== null);
  if (largest) {
    report.http = await runPhase(report, `4. API and page speed at ${largest.benchPartitions} partitions`, () =>
      runHttpPhase(dashboard, browser, stack.app.pid, flowId, largest.benchPartitions, opts.loadSeconds, say),
    );
  }
  await naive.close();
  res.naive = null;
  await runtime.stop();
  res.runtime = null;
  const deleted = await runPhase(report, "removing the benchmark topics", () => deleteTopicsMatching(admins, (name) => name.startsWith("bench-") || name.startsWith(`${admins.sourceAlias}.bench-`)));
  if (deleted !== null) report.deleteSeconds = deleted / 1000;
  // After the topics are gone (so none of them leaves the flow while it still exists) and before
  // the detection phase, which judges the flow as the sandbox defines it.
  await removeBenchConnector(res, report);

  report.detection = await runPhase(report, "3. detection latency", async () => {
    const page = await browser.newPage();
    await page.goto(`${dashboard.base}/?refresh=5`);
    const injections = await measureDetectionLatency({ state, flowId, pollIntervalMs: benchPollSeconds * 1000, dashboard, page, log: say }, opts.rounds);
    await page.close();
    return { rounds: opts.rounds, summary: summarizeLatency(injections), injections };
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const opts = readOptions(process.argv.slice(2));
  const report = createReport();
  const port = Number(process.env.PORT ?? (await findFreePort()));
  const res = createResources();
  let stopping: Promise<void> | null = null;
  const stopAll = () => (stopping ??= stopResources(res, report));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`\n${signal}: stopping everything the benchmark started…`);
      void stopAll().finally(() => process.exit(130));
    });
  }

  if (opts.stack) await measureStackPhases(opts, report, res, port, stopAll);
  if (opts.synthetic) await measureSyntheticPhases(opts, report);
  report.durationSeconds = (Date.now() - started) / 1000;
  report.targets = judgeTargets(report);
  const file = writeReportFile(report, path.join(gapwatchDir, "bench"));
  say(`\n${renderReport(report)}\n\nJSON: ${file}`);
  process.exit(report.errors.length ? 1 : 0);
}

/** Phases 1–4 on a stack of their own (sandbox, workload, dashboard), stopped by PID when they are done. */
async function measureStackPhases(opts: BenchOptions, report: BenchReport, res: BenchResources, port: number, stopAll: () => Promise<void>): Promise<void> {
  say(`Gapwatch benchmark: sizes ${opts.sizes.join(", ")} partitions, ${opts.cycles} cycles each, ${opts.rounds} injections per fault, dashboard on port ${port}.`);
  try {
    const t = Date.now();
    const stack = (res.stack = await startStack({ port, workload: true, pollIntervalSeconds: benchPollSeconds, log: say }));
    report.stackStartSeconds = (Date.now() - t) / 1000;
    report.kafkaVersion = stack.sandbox.state.kafkaVersion;
    say(`Stack up in ${report.stackStartSeconds.toFixed(0)} s (Kafka ${report.kafkaVersion}).`);
    await measureWithStack(stack, res, opts, report);
  } catch (err) {
    report.errors.push(err instanceof Error ? err.message : String(err));
    say(`benchmark failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    say("\nStopping the stack and removing the benchmark's topics…");
    await stopAll();
  }
}

/** Phases 5–9: no stack, each on a synthetic world or a simulated clock. */
async function measureSyntheticPhases(opts: BenchOptions, report: BenchReport): Promise<void> {

  // Needs no stack: scaled from the committed sandbox snapshot (scripts/bench/pipeline-compute.ts).
  const computeSizes = [10_000, opts.syntheticPartitions, ...(opts.syntheticMillion ? [1_000_000] : [])];
  const asked = (phase: number) => opts.phases.has(phase);
  if (asked(5)) report.synthetic = await runPhase(report, `5. pipeline computation at ${computeSizes.join(", ")} partitions`, () =>
    runPipelineCompute({ sizes: computeSizes, cycles: opts.syntheticCycles, millionCycles: 3, log: say }),
  );
  // Needs no stack: its snapshots are generated (scripts/bench/metrics-scrape.ts).
  if (asked(6)) report.metrics = await runPhase(report, `6. Prometheus update and scrape at 10,000 and ${opts.syntheticPartitions} partitions`, () =>
    measureMetricsScrapeSizes([10_000, opts.syntheticPartitions], 20),
  );
  // Needs no stack: the real CyclePipeline, store included, on phase 5's world (scripts/bench/pipeline-cycle.ts);
  // PostgreSQL (a throwaway server) at 10,000 partitions when Debian's package is installed.
  const cycleRuns = [
    ...[10_000, opts.syntheticPartitions].map((partitions) => ({ store: "sqlite" as const, partitions })),
    ...(findPostgresBin() === null ? [] : [{ store: "postgres" as const, partitions: 10_000 }]),
  ];
  if (asked(7)) report.cycle = await runPhase(report, `7. whole cycle pipeline with its store at ${cycleRuns.map((r) => `${r.partitions} ${r.store}`).join(", ")}`, () =>
    runPipelineCycle({ runs: cycleRuns, cycles: opts.syntheticCycles, log: say }),
  );
  if (opts.previous !== null && (asked(5) || asked(7))) await measurePreviousVersion(opts.previous, opts, report);
  // Needs no stack: simulated cycles through the real SQLite store (scripts/bench/history-size.ts); 3 h of a 10 s poll
  // at 2,000 partitions (30 % moving) keeps it to minutes, the tier arithmetic extrapolates to 100,000 × 7 days.
  const historyHours = opts.syntheticMillion ? 3 : 1;
  if (asked(8)) report.history = await runPhase(report, `8. history size (${historyHours} h simulated at 2,000 partitions)`, () =>
    runHistorySize({ store: "sqlite", vacuum: "auto", partitions: 2000, active: 0.3, hours: historyHours, pollSeconds: 10, partitionsPerTopic: 20 }, say),
  );
  // Needs no stack: the real ContentAuditor over phase 5's world, records from a stand-in broker (its requests do not
  // grow with partitions; its planning and hashing do), at the default budget and at 60 times it.
  if (asked(9)) report.audit = await runPhase(report, "9. content audit cost at 1,000 and 10,000 partitions", async () => [
    await measureAuditCost(1_000, 20, 200, say),
    await measureAuditCost(10_000, 20, 200, say),
    await measureAuditCost(10_000, 20, 12_000, say),
  ]);
}

/**
 * Phases 5 and 7 at the synthetic size (SQLite) again, with the previous version's own scripts and sources, so the
 * targets show both figures from one run on one machine.
 */
async function measurePreviousVersion(ref: string, opts: BenchOptions, report: BenchReport): Promise<void> {
  const previous = await runPhase(report, `5+7 of the previous version (${ref})`, async () => checkOutPreviousVersion(ref));
  if (previous === null) return;
  try {
    const sizes = [opts.syntheticPartitions];
    const root = previous.root;
    report.previous = { ref: previous.ref, commit: previous.commit, synthetic: null, cycle: null };
    if (opts.phases.has(5)) report.previous.synthetic = await runPhase(report, `5. previous version: pipeline computation at ${sizes[0]} partitions`, () =>
      runPipelineCompute({ sizes, cycles: opts.syntheticCycles, millionCycles: 3, log: say, root }),
    );
    if (opts.phases.has(7)) report.previous.cycle = await runPhase(report, `7. previous version: whole cycle pipeline at ${sizes[0]} sqlite`, () =>
      runPipelineCycle({ runs: [{ store: "sqlite", partitions: opts.syntheticPartitions }], cycles: opts.syntheticCycles, log: say, root }),
    );
  } finally {
    removePreviousVersion(previous);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
