// `npm run soak -- --minutes N [--seed S] [--ci]`: the chaos soak. Imported by scripts/soak.ts once
// GAPWATCH_HOME is set (lib/sandbox/paths.ts reads it at import time).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getRuntime } from "@/lib/pipeline/runtime";
import type { Snapshot } from "@/lib/collector/types";
import { connectorNames, type FlowClusters } from "@/lib/sandbox/mm2-connectors";
import { gapwatchDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { type Sandbox, startSandbox } from "@/lib/sandbox/sandbox";
import { ensureTopics } from "@/lib/sandbox/topics";
import { startWorkload, type Workload } from "@/lib/sandbox/workload";
import { parseFlags } from "../args";
import { isFlowSettled, watchCycles, type CycleWatch } from "./cycle-watch";
import { ciCoverageEvents, restoreMm2, soakEvents, type ExpectationSpec, type SoakContext, type SoakEvent } from "./events";
import { createFiringTest, listOccurrences, matchAlerts, type Expectation, type WhitelistEntry } from "./expectations";
import { createRng, createShuffleBag } from "./random";
import { createSoakReport, renderReport, type SoakEventRecord, type SoakReport, summarize, writeReportFile } from "./report";
import { eventOnlyTopics, soakTopics, startSoakTraffic, type SoakTraffic } from "./traffic";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

const say = (line: string) => process.stdout.write(`${line}\n`);
const flowId = "east->west";
const names = connectorNames("east", "west");

/**
 * Short thresholds so the rules are really exercised within minutes: a stall after 30 s, lag in
 * time after 45 s, and a retention horizon that makes the soak-retention topic (retention.ms
 * 600 s) at risk once its oldest unreplicated record is 45 s old. CHECKPOINT_STALE keeps its
 * threshold from MM2's own settings (sandbox: emit every 5 s → 60 s; new groups 20 s).
 */
const thresholds = { stallAfterMs: 30_000, lagSeconds: 45, retentionHorizonMs: 600_000 - 45_000 };
/** Alerts that fire after an event settled still belong to it for this long. */
const graceMs = 20_000;
/** Total lag (data records) under which the flow counts as caught up while the workload runs. */
const settledLag = 400n;

/** A consumer group that starts with the events (the warm-up): MM2 checkpoints it after its next group refresh. */
const newGroup = "gapwatch-soak-new-group";

// COMMIT_WITHOUT_LEADER_EPOCH (kafkajs commits without a leader epoch) is a standing risk, never an alert.
const whitelist: WhitelistEntry[] = [
  {
    type: "ABORTED_RECORDS_COPIED",
    topics: [soakTopics.transactions.topic],
    reason: "the transactional producer aborts every fourth transaction and MM2 (not exactly-once) copies aborted records (KAFKA-14021)",
  },
];

interface Resources {
  sandbox: Sandbox | null;
  workload: Workload | null;
  traffic: SoakTraffic | null;
  runtime: ReturnType<typeof getRuntime> | null;
}

function readOptions(argv: string[]): SoakReport["options"] {
  const { flags } = parseFlags(argv);
  const minutes = Number(flags.minutes ?? 5);
  const seed = flags.seed === undefined ? Date.now() % 2 ** 31 : Number(flags.seed);
  if (!(minutes > 0)) throw new Error(`--minutes must be a positive number, got "${flags.minutes}"`);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${flags.seed}"`);
  const kinds = flags.events?.split(",") ?? null;
  const unknown = kinds?.filter((k) => !soakEvents.some((e) => e.kind === k)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown event kind(s) ${unknown.join(", ")}; kinds: ${soakEvents.map((e) => e.kind).join(", ")}`);
  return { minutes, seed, ci: flags.ci === "true", kinds };
}

/** Writes the runtime's config (short thresholds, 5 s poll) and points GAPWATCH_CONFIG/GAPWATCH_DB at it. */
function createSoakRuntime(sandbox: Sandbox, dir: string): ReturnType<typeof getRuntime> {
  mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, "gapwatch.config.yaml");
  const clusters = Object.entries(sandbox.state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  writeFileSync(
    configFile,
    `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${sandbox.state.connect.url}\n    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}\npollIntervalSeconds: 5\nconfigRefreshCycles: 1\nthresholds: ${JSON.stringify(thresholds)}\n`,
  );
  process.env.GAPWATCH_CONFIG = configFile;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
  return getRuntime();
}

async function isConnectUp(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/connectors`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

/** Runs the soak; resolves with the exit code (non-zero on any false or missed alert, or an error). */
export async function runSoak(argv: string[]): Promise<number> {
  const opts = readOptions(argv);
  const report = createSoakReport(opts, thresholds);
  const expectations: Expectation[] = [];
  const res: Resources = { sandbox: null, workload: null, traffic: null, runtime: null };
  const soakDir = path.join(gapwatchDir, "soak");
  let finishing: Promise<number> | null = null;
  const finish = (exit: NonNullable<SoakReport["exit"]>) => (finishing ??= finishRun(report, expectations, res, exit, soakDir));

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`\n${signal}: stopping everything the soak started…`);
      void finish("interrupted").then(() => process.exit(130));
    });
  }
  // A transient kafkajs error must not end the soak; it is recorded.
  process.on("unhandledRejection", (err) => report.errors.push(`unhandled rejection: ${err instanceof Error ? err.message : String(err)}`));

  say(`Gapwatch soak: ${opts.minutes} min of events, seed ${opts.seed} (repeat with --seed ${opts.seed}${opts.ci ? " --ci" : ""}), home ${gapwatchDir}`);
  try {
    await runEvents(opts, report, expectations, res);
    return await finish("completed");
  } catch (err) {
    report.errors.push(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return await finish("failed");
  }
}

async function runEvents(opts: SoakReport["options"], report: SoakReport, expectations: Expectation[], res: Resources): Promise<void> {
  const started = Date.now();
  res.sandbox = await startSandbox();
  const state = res.sandbox.state;
  report.kafkaVersion = state.kafkaVersion;
  const east = state.clusters.east!.bootstrap;
  const flowClusters: FlowClusters = { source: { alias: "east", bootstrap: east }, target: { alias: "west", bootstrap: state.clusters.west!.bootstrap } };
  say(`sandbox up in ${((Date.now() - started) / 1000).toFixed(0)} s (Kafka ${state.kafkaVersion})`);
  await ensureTopics(east, Object.values(soakTopics));
  res.workload = await startWorkload({ bootstrap: east, ratePerSecond: 20 });
  const run = `soak-${opts.seed}`;
  let current: SoakEventRecord | null = null;
  const record = (kind: string, fault: boolean, startedAt: number): SoakEventRecord => {
    const event: SoakEventRecord = { id: `e${report.events.length + 1}-${kind}`, kind, fault, startedAt, endedAt: null, settledAt: null, details: {}, error: null };
    report.events.push(event);
    return event;
  };
  res.traffic = await startSoakTraffic(east, run, {
    activeMs: 15_000,
    idleMs: thresholds.stallAfterMs + 15_000,
    // Idle transactional partitions end with a commit marker: nothing may fire (no lag, no stall).
    onIdle: (from, to) => Object.assign(record("tx-producer-idle", false, from), { endedAt: to, settledAt: to, details: { idleMs: to - from } }),
  });
  const runtime = createSoakRuntime(res.sandbox, path.join(gapwatchDir, "soak", `run-${report.startedAt.replaceAll(":", "-")}`));
  res.runtime = runtime;
  const watch = watchCycles(runtime.collector);
  res.runtime.collector.start();

  const ctx: SoakContext = {
    state,
    endpoint: { url: state.connect.url, timeoutMs: 15_000 },
    flowId,
    flowClusters,
    stallAfterMs: thresholds.stallAfterMs,
    traffic: res.traffic,
    watch,
    isFiring: (type, test) => runtime.alerts.list({ state: "firing", type }).some(test),
    expect: (spec) => {
      if (current === null) throw new Error("expectations belong to an event");
      expectations.push(toExpectation(spec, current, expectations.length + 1));
    },
  };
  const inFlow = (s: Snapshot, topic: string) => s.flows.find((f) => f.id === flowId)?.partitions.some((p) => p.topic === topic) ?? false;
  // MM2 holds a committed offset for every partition before any event (see eventOnlyTopics).
  const committed = (s: Snapshot, topic: string) => {
    const rows = s.flows.find((f) => f.id === flowId)?.partitions.filter((p) => p.topic === topic) ?? [];
    return rows.length > 0 && rows.every((p) => (p.committedPosition ?? 0n) > 0n);
  };
  const ready = (s: Snapshot) => Object.values(soakTopics).every((t) => inFlow(s, t.topic)) && eventOnlyTopics.every((t) => committed(s, t.topic));
  await settle(watch, (s) => isFlowSettled(s, flowId, names.source, settledLag) && ready(s), "the soak topics in the flow, each partition copied");
  say(`traffic flowing, Gapwatch polling every 5 s; warm-up of 30 s with a new consumer group (${newGroup})`);
  // A new group is not a stale one: MM2 checkpoints it only after its next group refresh.
  const warmUp = record("new-group", false, Date.now());
  await res.traffic.startGroup(newGroup, soakTopics.retention.topic);
  warmUp.details = { group: newGroup, topic: soakTopics.retention.topic };
  await sleep(30_000);
  warmUp.endedAt = warmUp.settledAt = Date.now();

  const rng = createRng(opts.seed);
  const next = createShuffleBag(opts.kinds === null ? soakEvents : soakEvents.filter((e) => opts.kinds!.includes(e.kind)), rng);
  // --ci: the coverage events first, each once, in seeded order; they run even past the deadline.
  const coverage = opts.ci ? shuffle(ciCoverageEvents, rng) : [];
  const eventsUntil = Date.now() + opts.minutes * 60_000;
  while (coverage.length > 0 || Date.now() < eventsUntil) {
    const event = coverage.pop() ?? pickRunnable(next, ctx);
    current = record(event.kind, event.fault, Date.now());
    await runEvent(event, current, ctx, report);
    const done = current;
    for (const e of expectations.filter((x) => x.eventId === done.id)) e.to = (done.settledAt ?? done.endedAt ?? Date.now()) + graceMs;
    current = null;
    await sleep(10_000 + Math.floor(rng() * 10_000));
  }
  say(`events done; watching ${graceMs / 1000 + 30} s more for late alerts`);
  await sleep(graceMs + 30_000);
}

function shuffle<T>(items: readonly T[], rng: () => number): T[] {
  const take = createShuffleBag(items, rng);
  return items.map(() => take());
}

function pickRunnable(next: () => SoakEvent, ctx: SoakContext): SoakEvent {
  for (let i = 0; i < 4 * soakEvents.length; i++) {
    const event = next();
    if (event.canRun(ctx)) return event;
  }
  throw new Error("no soak event can run");
}

async function runEvent(event: SoakEvent, record: SoakEventRecord, ctx: SoakContext, report: SoakReport): Promise<void> {
  const offset = ((record.startedAt - Date.parse(report.startedAt)) / 1000).toFixed(0);
  say(`+${offset} s ${record.id}${event.fault ? " (fault)" : ""}…`);
  let extra: ((s: Snapshot) => boolean) | undefined;
  try {
    const outcome = await event.run(ctx);
    record.details = outcome.details;
    extra = outcome.settle;
  } catch (err) {
    record.error = err instanceof Error ? err.message : String(err);
    report.errors.push(`${record.id}: ${record.error}`);
    say(`  failed: ${record.error}; restoring MM2`);
    report.errors.push(...(await restoreMm2(ctx, await isConnectUp(ctx.state.connect.url))).map((e) => `${record.id} recovery: ${e}`));
  }
  record.endedAt = Date.now();
  try {
    await settle(ctx.watch, (s) => isFlowSettled(s, ctx.flowId, names.source, settledLag) && (extra?.(s) ?? true), `the flow to settle after ${record.id}`);
    record.settledAt = Date.now();
    say(`  done in ${((record.endedAt - record.startedAt) / 1000).toFixed(0)} s, settled ${((record.settledAt - record.endedAt) / 1000).toFixed(0)} s later`);
  } catch (err) {
    report.errors.push(`${record.id}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Waits for two consecutive cycles that satisfy `check`. */
async function settle(watch: CycleWatch, check: Parameters<CycleWatch["waitFor"]>[0], what: string): Promise<void> {
  await watch.waitFor(check, what, 180_000);
  await watch.waitFor(check, what, 60_000);
}

function toExpectation(spec: ExpectationSpec, event: SoakEventRecord, n: number): Expectation {
  return {
    id: `x${n}`,
    eventId: event.id,
    type: spec.type,
    severity: spec.severity,
    required: spec.required,
    flow: flowId,
    topic: spec.topic ?? null,
    partition: spec.partition ?? null,
    group: spec.group ?? null,
    from: event.startedAt,
    to: Infinity,
    exact: spec.exact ?? {},
    contains: spec.contains ?? {},
    bounds: spec.bounds ?? {},
    reason: spec.reason,
    matched: [],
  };
}

/**
 * Stops the collector, matches every alert it raised against the expectations, stops the traffic
 * and the sandbox (each process by PID), writes the report and returns the exit code.
 */
async function finishRun(report: SoakReport, expectations: Expectation[], res: Resources, exit: NonNullable<SoakReport["exit"]>, dir: string): Promise<number> {
  const attempt = async (what: string, action: () => Promise<unknown> | unknown) => {
    try {
      await action();
    } catch (err) {
      report.errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  let missed = 0;
  if (res.runtime !== null) {
    const runtime = res.runtime;
    await attempt("stopping the collector", () => runtime.collector.stop());
    await attempt("matching alerts", async () => {
      const timeline = await runtime.store.listEvents(0, Date.now() + 1, 1_000_000);
      const occurrences = listOccurrences(runtime.alerts.list({}), timeline);
      const result = matchAlerts(occurrences, expectations, whitelist, createFiringTest(timeline));
      report.alerts = result.occurrences;
      missed = result.missed.length;
    });
    runtime.alerts.stop();
    await runtime.store.close();
  }
  report.expectations = expectations;
  if (res.traffic !== null) {
    const traffic = res.traffic;
    report.trafficErrors = traffic.errors();
    await attempt("stopping the soak traffic", () => traffic.stop());
  }
  if (res.workload !== null) await attempt("stopping the workload", () => res.workload!.stop());
  if (res.sandbox !== null) await attempt("stopping the sandbox", () => res.sandbox!.stop());
  report.summary = summarize(report, missed);
  const failed = report.summary.byVerdict.false > 0 || missed > 0 || report.errors.length > 0 || exit !== "completed";
  report.exit = exit;
  report.exitCode = failed ? 1 : 0;
  report.finishedAt = new Date().toISOString();
  report.durationSeconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  say(renderReport(report));
  say(`\nreport: ${writeReportFile(dir, report)}`);
  return report.exitCode;
}
