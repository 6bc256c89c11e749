import { getConfig } from "@/lib/config";
import type { GapwatchRole } from "@/lib/config/role";
import { getServingRuntime } from "@/lib/pipeline/runtime";

/**
 * Readiness allows this many poll intervals since the last finished cycle: one cycle late is normal under load (a
 * cycle's own time adds to the interval), three in a row is a stuck or stopped collector.
 */
export const readyWithinIntervals = 3;

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
}

/** What readiness judges: the served model's cycle and build time (null before any), the clock, the limits. */
export interface ReadinessInput {
  role: GapwatchRole;
  model: { cycle: number; builtAt: number } | null;
  now: number;
  /** When this process started, epoch ms. */
  startedAt: number;
  pollIntervalMs: number;
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
  });
}

/**
 * Ready when the read model this process serves was built within `readyWithinIntervals` poll intervals. Roles all and
 * collector: that is their own last finished cycle (role all's collector process publishes it to the server's
 * process); role web: the newest model the collectors published (a merged model counts its oldest part). Before the
 * first model the process is `starting` for the same allowance after its start (the first cycle also reads the
 * internal topics from their start), then `stale`: never ready without data.
 */
export function assessReadiness(input: ReadinessInput): ReadinessView {
  const maxAgeMs = readyWithinIntervals * input.pollIntervalMs;
  const uptimeMs = Math.max(0, Math.round(input.now - input.startedAt));
  const base = { role: input.role, maxAgeMs, uptimeMs };
  if (input.model === null) {
    const status = uptimeMs <= maxAgeMs ? "starting" : "stale";
    return { ...base, status, cycle: null, lastCycleAt: null, ageMs: null, reason: describeNoModel(input.role, uptimeMs, status) };
  }
  const ageMs = Math.max(0, input.now - input.model.builtAt);
  const fresh = ageMs <= maxAgeMs;
  return {
    ...base,
    status: fresh ? "ready" : "stale",
    cycle: input.model.cycle,
    lastCycleAt: input.model.builtAt,
    ageMs,
    reason: fresh ? null : describeStale(input.role, input.model.cycle, ageMs, maxAgeMs),
  };
}

function describeNoModel(role: GapwatchRole, uptimeMs: number, status: "starting" | "stale"): string {
  const since = `${seconds(uptimeMs)} after this process started`;
  if (role === "web") {
    return `no collector has published a read model to the store yet (${since}); check that a GAPWATCH_ROLE=collector process runs against the same PostgreSQL`;
  }
  const first = `the first poll cycle has not finished (${since})`;
  return status === "starting" ? `${first}; it reads every cluster and MM2's internal topics` : `${first}; see the collector's log and /api/health`;
}

function describeStale(role: GapwatchRole, cycle: number, ageMs: number, maxAgeMs: number): string {
  const age = `${seconds(ageMs)} ago, more than ${readyWithinIntervals} poll intervals (${seconds(maxAgeMs)})`;
  if (role === "web") {
    return `the newest read model the collectors published (cycle ${cycle}) was built ${age}: a collector stopped publishing or the store cannot be read; see the collectors' and this process's logs`;
  }
  return `the last poll cycle (${cycle}) finished ${age}: the collector is stuck or stopped; see its log and /api/health`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** This process's start, from Node's own uptime (no module state: hot reload keeps the real start). */
function startedAtOf(now: number): number {
  return now - process.uptime() * 1000;
}
