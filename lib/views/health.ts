import { principalOf } from "@/lib/acls/acl-rules";
import { type BlindSpot, deriveBlindSpots } from "@/lib/acls/blind-spots";
import type { Snapshot } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import { describePartialData, type PartialData } from "./flows";
import { readLatestSnapshot } from "./runtime-data";

export interface HealthView {
  status: "starting" | "ok" | "degraded";
  cycle: number | null;
  lastCycleAt: number | null;
  clusters: { alias: string; reachable: boolean; stale: boolean; dataAgeMs: number | null; error: string | null; unknownGroups: number }[];
  connect: { name: string; reachable: boolean; error: string | null }[];
  /** Flows with partitions whose data could not be read this cycle ("partial"). */
  flows: { id: string; partitions: number; partial: PartialData | null }[];
  /** Reads denied for lack of an ACL: what each hides, for which topics or groups, and the ACL that fixes it. */
  blindSpots: BlindSpot[];
}

/**
 * Liveness and reachability: `starting` before the first cycle, `degraded` when anything is unreachable or unknown,
 * or a read is denied (a blind spot).
 */
export function readHealth(now: number): HealthView {
  const snapshot = readLatestSnapshot();
  if (!snapshot) return { status: "starting", cycle: null, lastCycleAt: null, clusters: [], connect: [], flows: [], blindSpots: [] };
  return assessHealth(snapshot, now, readPrincipals());
}

/** Gapwatch's principal per cluster alias, for the blind spots' fix commands. */
export function readPrincipals(): Record<string, string> {
  return Object.fromEntries(getConfig().clusters.map((c) => [c.alias, principalOf(c)]));
}

/**
 * The health of one snapshot: unreachable clusters or Connect, unknown partitions or groups, or blind spots make it
 * `degraded`. `principals` name Gapwatch's principal per cluster in the blind spots' fixes.
 */
export function assessHealth(snapshot: Snapshot, now: number, principals: Readonly<Record<string, string>> = {}): HealthView {
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
  const degraded =
    clusters.some((c) => !c.reachable || c.unknownGroups > 0) || connect.some((c) => !c.reachable) || flows.some((f) => f.partial !== null) || blindSpots.length > 0;
  return { status: degraded ? "degraded" : "ok", cycle: snapshot.cycle, lastCycleAt: snapshot.takenAt, clusters, connect, flows, blindSpots };
}
