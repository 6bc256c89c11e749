import type { Snapshot } from "@/lib/collector/types";
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
}

/** Liveness and reachability: `starting` before the first cycle, `degraded` when anything is unreachable or unknown. */
export function readHealth(now: number): HealthView {
  const snapshot = readLatestSnapshot();
  return snapshot ? assessHealth(snapshot, now) : { status: "starting", cycle: null, lastCycleAt: null, clusters: [], connect: [], flows: [] };
}

/** The health of one snapshot: unreachable clusters or Connect, unknown partitions or groups make it `degraded`. */
export function assessHealth(snapshot: Snapshot, now: number): HealthView {
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
  const degraded = clusters.some((c) => !c.reachable || c.unknownGroups > 0) || connect.some((c) => !c.reachable) || flows.some((f) => f.partial !== null);
  return { status: degraded ? "degraded" : "ok", cycle: snapshot.cycle, lastCycleAt: snapshot.takenAt, clusters, connect, flows };
}
