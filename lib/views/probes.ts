import { getConfig } from "@/lib/config";
import type { GapwatchRole } from "@/lib/config/role";
import { formatAge } from "@/lib/format";
import { getServingRuntime } from "@/lib/pipeline/runtime";

/**
 * Data is fresh for this many poll intervals after its cycle finished: one cycle late is normal under load (a cycle's
 * own time adds to the interval), three in a row is a stuck or stopped collector.
 */
export const readyWithinIntervals = 3;

/** How long data stays fresh with this config's poll interval: `readyWithinIntervals` intervals, ms. */
export function readFreshForMs(): number {
  return readyWithinIntervals * getConfig().pollIntervalSeconds * 1000;
}

export interface LivenessView {
  status: "live";
  pid: number;
  uptimeMs: number;
}

export interface ReadinessView {
  status: "ready" | "starting" | "stale";
  role: GapwatchRole;
  /** The cycle of the read model this process serves, or null when it holds none. */
  cycle: number | null;
  /** When that cycle was finished (its read model built), epoch ms. */
  lastCycleAt: number | null;
  ageMs: number | null;
  /** Ready while `ageMs` is at most this: `readyWithinIntervals` poll intervals. */
  maxAgeMs: number;
  uptimeMs: number;
  /** Why this process is not ready (null when it is): what it waits for and where to look. */
  reason: string | null;
  /**
   * Roles all and web, ready with data older than `maxAgeMs`: what is old and why this process still takes traffic
   * (its pages show the data with its age); null when the data is fresh.
   */
  staleData: string | null;
}

/** What readiness judges: the served model's cycle and build time (null before any), the clock, the limits. */
export interface ReadinessInput {
  role: GapwatchRole;
  model: { cycle: number; builtAt: number } | null;
  now: number;
  /** When this process started, epoch ms. */
  startedAt: number;
  pollIntervalMs: number;
  /** Role web: when this process last read the published models from the store (null before any read). */
  storeReadAt?: number | null;
}

/** Liveness: this process answers HTTP. Reads nothing else, so a slow store or Kafka never restarts it. */
export function readLiveness(now: number): LivenessView {
  return { status: "live", pid: process.pid, uptimeMs: Math.round(now - startedAtOf(now)) };
}

/** Readiness of this process now, from the read model it serves (see assessReadiness). */
export function readReadiness(now: number): ReadinessView {
  const runtime = getServingRuntime();
  const model = runtime.models.latest();
  return assessReadiness({
    role: runtime.role,
    model: model === null ? null : { cycle: model.snapshot.cycle, builtAt: model.builtAt },
    now,
    startedAt: startedAtOf(now),
    pollIntervalMs: getConfig().pollIntervalSeconds * 1000,
    storeReadAt: runtime.storeReadAt?.() ?? null,
  });
}

/**
 * Role collector: ready when its last finished cycle is at most `readyWithinIntervals` poll intervals old. Roles all
 * and web serve pages: ready once they hold a read model, however old, while they can read the store. Taking them out
 * of a Service for a stuck collector would make the dashboard unreachable when it matters; the pages show the data's
 * age instead (`staleData` says so here), and Prometheus's GapwatchCollectorStalled pages for it. A web instance whose
 * own reads of the store fail for as long is not ready: another replica may read it (role all has none). Before the first model a process
 * is `starting` for the same allowance after its start (the first cycle also reads the internal topics from their
 * start), then `stale`: never ready without data.
 */
export function assessReadiness(input: ReadinessInput): ReadinessView {
  const maxAgeMs = readyWithinIntervals * input.pollIntervalMs;
  const uptimeMs = Math.max(0, Math.round(input.now - input.startedAt));
  const base = { role: input.role, maxAgeMs, uptimeMs, staleData: null };
  if (input.model === null) {
    const status = uptimeMs <= maxAgeMs ? "starting" : "stale";
    return { ...base, status, cycle: null, lastCycleAt: null, ageMs: null, reason: describeNoModel(input.role, uptimeMs, status) };
  }
  const ageMs = Math.max(0, input.now - input.model.builtAt);
  const served = { ...base, cycle: input.model.cycle, lastCycleAt: input.model.builtAt, ageMs };
  const fresh = ageMs <= maxAgeMs;
  if (input.role === "collector") {
    return { ...served, status: fresh ? "ready" : "stale", reason: fresh ? null : describeStuckCollector(input.model.cycle, ageMs, maxAgeMs) };
  }
  // Role web only: role all is one process, with no other replica to send its traffic to.
  const judgesReads = input.role === "web" && input.storeReadAt !== undefined && input.storeReadAt !== null;
  const unreadFor = judgesReads ? input.now - input.storeReadAt! : 0;
  if (unreadFor > maxAgeMs) return { ...served, status: "stale", reason: describeUnreadStore(input.model.cycle, ageMs, unreadFor, maxAgeMs) };
  return { ...served, status: "ready", reason: null, staleData: fresh ? null : describeStaleData(input.role, input.model.cycle, ageMs, maxAgeMs) };
}

/**
 * The banner every page shows while what it serves is old (roles all and web), or null: how old, what that hides, what
 * to check. Readiness keeps such a process in its Service, so this is how an operator on the pages learns it.
 */
export function describeStalePages(view: ReadinessView): string | null {
  if (view.cycle === null || view.ageMs === null) return null;
  if (view.staleData === null && view.status === "ready") return null;
  const age = `cycle ${view.cycle}, which finished ${formatAge(view.ageMs)} ago (fresh data is at most ${formatAge(view.maxAgeMs)} old)`;
  const hides = "figures, alerts and failover readiness since then are not shown";
  if (view.status !== "ready") {
    return `Stale data: this page shows ${age}. This server cannot read the store, so ${hides}. Check its log for the store's error.`;
  }
  const who = view.role === "web" ? "A collector stopped publishing (the oldest part of this page counts)" : "The collector is stuck or stopped";
  return `Stale data: this page shows ${age}. ${who}, so ${hides}. Check /api/health and the collector's log.`;
}

function describeNoModel(role: GapwatchRole, uptimeMs: number, status: "starting" | "stale"): string {
  const since = `${seconds(uptimeMs)} after this process started`;
  if (role === "web") {
    return `no collector has published a read model to the store yet (${since}); check that a GAPWATCH_ROLE=collector process runs against the same PostgreSQL`;
  }
  const first = `the first poll cycle has not finished (${since})`;
  return status === "starting" ? `${first}; it reads every cluster and MM2's internal topics` : `${first}; see the collector's log and /api/health`;
}

function describeStuckCollector(cycle: number, ageMs: number, maxAgeMs: number): string {
  return `the last poll cycle (${cycle}) finished ${seconds(ageMs)} ago, ${beyond(maxAgeMs)}: the collector is stuck or stopped; see its log and /api/health`;
}

function describeStaleData(role: GapwatchRole, cycle: number, ageMs: number, maxAgeMs: number): string {
  const whose = role === "web" ? "the newest read model the collectors published" : "the last poll cycle";
  const where = role === "web" ? "the collectors' logs" : "the collector's log";
  return (
    `${whose} (cycle ${cycle}) finished ${seconds(ageMs)} ago, ${beyond(maxAgeMs)}: a collector is stuck or stopped; ` +
    `the pages show its data with its age (still ready: they are how you see it); see ${where} and /api/health`
  );
}

function describeUnreadStore(cycle: number, ageMs: number, unreadForMs: number, maxAgeMs: number): string {
  return (
    `this process has not read the store for ${seconds(unreadForMs)}, ${beyond(maxAgeMs)} (it serves cycle ${cycle}, ` +
    `built ${seconds(ageMs)} ago): another replica may read it; see this process's log for the store's error`
  );
}

function beyond(maxAgeMs: number): string {
  return `more than ${readyWithinIntervals} poll intervals (${seconds(maxAgeMs)})`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** This process's start, from Node's own uptime (no module state: hot reload keeps the real start). */
function startedAtOf(now: number): number {
  return now - process.uptime() * 1000;
}
