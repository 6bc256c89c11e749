import { readLatestSnapshot } from "./runtime-data";

export interface HealthView {
  status: "starting" | "ok" | "degraded";
  cycle: number | null;
  lastCycleAt: number | null;
  clusters: { alias: string; reachable: boolean; stale: boolean; dataAgeMs: number | null; error: string | null }[];
  connect: { name: string; reachable: boolean; error: string | null }[];
}

/** Liveness and reachability: `starting` before the first cycle, `degraded` when anything is unreachable. */
export function readHealth(now: number): HealthView {
  const snapshot = readLatestSnapshot();
  if (!snapshot) return { status: "starting", cycle: null, lastCycleAt: null, clusters: [], connect: [] };
  const clusters = snapshot.clusters.map((c) => ({ alias: c.alias, reachable: c.reachable, stale: c.stale, dataAgeMs: c.dataAt === null ? null : now - c.dataAt, error: c.error }));
  const connect = snapshot.connect.map((c) => ({ name: c.name, reachable: c.reachable, error: c.error }));
  const degraded = clusters.some((c) => !c.reachable) || connect.some((c) => !c.reachable);
  return { status: degraded ? "degraded" : "ok", cycle: snapshot.cycle, lastCycleAt: snapshot.takenAt, clusters, connect };
}
