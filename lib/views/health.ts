import { principalOf } from "@/lib/acls/acl-rules";
import { type BlindSpot, deriveBlindSpots } from "@/lib/acls/blind-spots";
import type { Snapshot } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import { describePartialData, type PartialData } from "./flows";
import { readFreshForMs, readyWithinIntervals } from "./probes";
import { readLatestModel } from "./runtime-data";

export interface HealthView {
  status: "starting" | "ok" | "degraded";
  cycle: number | null;
  lastCycleAt: number | null;
  /**
   * Why the data is stale (its cycle started more than 3 poll intervals ago: the collector is stuck or stopped), or
   * null. Every figure below is as old.
   */
  stale: string | null;
  clusters: { alias: string; reachable: boolean; stale: boolean; dataAgeMs: number | null; error: string | null; unknownGroups: number }[];
  connect: { name: string; reachable: boolean; error: string | null }[];
  /** Flows with partitions whose data could not be read this cycle ("partial"). */
  flows: { id: string; partitions: number; partial: PartialData | null }[];
  /** Reads denied for lack of an ACL: what each hides, for which topics or groups, and the ACL that fixes it. */
  blindSpots: BlindSpot[];
}

/**
 * Liveness and reachability: `starting` before the first cycle, `degraded` when the data is stale, anything is
 * unreachable or unknown, or a read is denied (a blind spot).
 */
export function readHealth(now: number): HealthView {
  const model = readLatestModel();
  if (!model) {
    return { status: "starting", cycle: null, lastCycleAt: null, stale: null, clusters: [], connect: [], flows: [], blindSpots: [] };
  }
  return assessHealth(model.snapshot, now, readPrincipals(), { maxAgeMs: readFreshForMs(), finishedAt: model.builtAt });
}

/** Gapwatch's principal per cluster alias, for the blind spots' fix commands. */
export function readPrincipals(): Record<string, string> {
  return Object.fromEntries(getConfig().clusters.map((c) => [c.alias, principalOf(c)]));
}

/**
 * The health of one snapshot: stale data (its cycle finished more than `freshness.maxAgeMs` before `now`, as readiness
 * measures it), unreachable clusters or Connect, unknown partitions or groups, or blind spots make it `degraded`.
 * `principals` name Gapwatch's principal per cluster in the blind spots' fixes.
 */
export function assessHealth(
  snapshot: Snapshot,
  now: number,
  principals: Readonly<Record<string, string>> = {},
  freshness: { maxAgeMs: number; finishedAt: number } | null = null,
): HealthView {
  const clusters = snapshot.clusters.map((c) => ({
    alias: c.alias,
    reachable: c.reachable,
    stale: c.stale,
    dataAgeMs: c.dataAt === null ? null : now - c.dataAt,
    error: c.error,
    unknownGroups: c.groups.filter((g) => g.error !== null).length,
  }));
  const connect = snapshot.connect.map((c) => ({ name: c.name, reachable: c.reachable, error: c.error }));
  const flows = snapshot.flows.map((f) => ({ id: f.id, partitions: f.partitions.length, partial: describePartialData(f.partitions, snapshot.takenAt) }));
  const blindSpots = deriveBlindSpots(snapshot, principals);
  const stale = freshness === null ? null : describeStaleHealth(snapshot.cycle, now - freshness.finishedAt, freshness.maxAgeMs);
  const degraded =
    stale !== null ||
    clusters.some((c) => !c.reachable || c.unknownGroups > 0) || connect.some((c) => !c.reachable) || flows.some((f) => f.partial !== null) || blindSpots.length > 0;
  return { status: degraded ? "degraded" : "ok", cycle: snapshot.cycle, lastCycleAt: snapshot.takenAt, stale, clusters, connect, flows, blindSpots };
}

function describeStaleHealth(cycle: number, ageMs: number, maxAgeMs: number): string | null {
  if (ageMs <= maxAgeMs) return null;
  return (
    `cycle ${cycle} finished ${Math.round(ageMs / 1000)} s ago, more than ${readyWithinIntervals} poll intervals ` +
    `(${Math.round(maxAgeMs / 1000)} s): the collector is stuck or stopped; every figure here is that old; see its log`
  );
}
