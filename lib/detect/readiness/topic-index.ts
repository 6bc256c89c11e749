/** The topic lists two readiness checks read (topics, configs), indexed once per cycle. */
import type { ClusterSnapshot, Flow, FlowPartition, Snapshot, TopicState } from "@/lib/collector/types";

export type TopicCounts = ReadonlyMap<string, { readonly targetTopic: string; readonly partitions: number }>;

/** Per partition list (one per cycle and flow): two checks read it, and a flow may have 10,000s of partitions. */
const countsOf = new WeakMap<readonly FlowPartition[], TopicCounts>();

/** The flow's source topics → their target topic and partition count. */
export function countPartitionsByTopic(flow: Flow): TopicCounts {
  const known = countsOf.get(flow.partitions);
  if (known) return known;
  const counts = new Map<string, { targetTopic: string; partitions: number }>();
  for (const p of flow.partitions) {
    const entry = counts.get(p.topic);
    if (entry) entry.partitions++;
    else counts.set(p.topic, { targetTopic: p.targetTopic, partitions: 1 });
  }
  countsOf.set(flow.partitions, counts);
  return counts;
}

/** Per cluster's topic list (one per cycle): name → its first topic, so a check of 1,000s of topics does not scan. */
const topicsOf = new WeakMap<readonly TopicState[], ReadonlyMap<string, TopicState>>();

/** A cluster's topics by name. */
export function indexTopics(cluster: ClusterSnapshot): ReadonlyMap<string, TopicState> {
  const known = topicsOf.get(cluster.topics);
  if (known) return known;
  const byName = new Map<string, TopicState>();
  // The first of a name, as Array.find gives.
  for (const t of cluster.topics) if (!byName.has(t.name)) byName.set(t.name, t);
  topicsOf.set(cluster.topics, byName);
  return byName;
}

/** The cluster when it answered this cycle with fresh data, else null. */
export function findFreshCluster(snapshot: Snapshot, alias: string): ClusterSnapshot | null {
  const cluster = snapshot.clusters.find((c) => c.alias === alias);
  return cluster !== undefined && cluster.reachable && !cluster.stale ? cluster : null;
}
