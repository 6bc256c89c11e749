import type { ClusterSnapshot, Snapshot } from "@/lib/collector/types";

export interface ClusterView {
  alias: string;
  bootstrap: string[];
  reachable: boolean;
  stale: boolean;
  error: string | null;
  dataAt: number | null;
  dataAgeMs: number | null;
  brokers: number;
  topics: { name: string; topicId: string | null; internal: boolean; partitions: number; logEndTotal: bigint; logStartTotal: bigint }[];
  groups: number;
  /** Groups whose committed offsets could not be read this cycle (their last good ones are kept). */
  unknownGroups: number;
  /** Partitions whose log offsets could not be read this cycle. */
  unknownPartitions: number;
  underReplicated: number;
  offline: number;
}

/** Clusters with reachability, data age and per-topic partition counts and offsets. */
export function listClusterViews(snapshot: Snapshot, now: number): ClusterView[] {
  return snapshot.clusters.map((c) => reshapeCluster(c, now));
}

function reshapeCluster(c: ClusterSnapshot, now: number): ClusterView {
  const partitions = c.topics.flatMap((t) => t.partitions);
  return {
    alias: c.alias,
    bootstrap: c.bootstrap,
    reachable: c.reachable,
    stale: c.stale,
    error: c.error,
    dataAt: c.dataAt,
    dataAgeMs: c.dataAt === null ? null : now - c.dataAt,
    brokers: c.brokers.length,
    topics: c.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      internal: t.internal || t.name.startsWith("__") || t.name.endsWith(".internal"),
      partitions: t.partitions.length,
      logEndTotal: t.partitions.reduce((s, p) => s + (p.logEnd ?? 0n), 0n),
      logStartTotal: t.partitions.reduce((s, p) => s + (p.logStart ?? 0n), 0n),
    })),
    groups: c.groups.length,
    unknownGroups: c.groups.filter((g) => g.error !== null).length,
    unknownPartitions: partitions.filter((p) => p.logStart === null || p.logEnd === null).length,
    underReplicated: partitions.filter((p) => p.isr.length < p.replicas.length).length,
    offline: partitions.filter((p) => p.leader === null).length,
  };
}
