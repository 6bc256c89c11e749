import type { ClusterSnapshot, Snapshot, TopicState } from "@/lib/collector/types";
import { NotFoundError } from "@/lib/errors";
import { parseTopicQuery, topicQuery } from "./flow-lists";
import { filterRows, sortRows, takePage, type KeyedRow, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

export interface ClusterTopicView {
  name: string;
  topicId: string | null;
  internal: boolean;
  partitions: number;
  logEndTotal: bigint;
  logStartTotal: bigint;
}

export interface ClusterView {
  alias: string;
  bootstrap: string[];
  reachable: boolean;
  stale: boolean;
  error: string | null;
  dataAt: number | null;
  dataAgeMs: number | null;
  brokers: number;
  topics: ClusterTopicView[];
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
  return snapshot.clusters.map((c) => ({ ...describeCluster(c, now), topics: c.topics.map(reshapeTopic) }));
}

export const clusterTopicSorts = ["topic", "partitions"] as const;
export type ClusterTopicSort = (typeof clusterTopicSorts)[number];

/** A topic row is about 150 bytes of JSON: 200 per cluster keep a few clusters under 256 KB. */
export const clusterTopicList: ListSpec<ClusterTopicSort> = { list: "cluster-topics", sorts: clusterTopicSorts, defaultSort: "topic", defaultLimit: 200, maxLimit: 5000, query: topicQuery };

/** By name; or by partition count, largest first (the name breaks ties). */
const topicOrders: Record<ClusterTopicSort, SortOrder<ClusterTopicView>> = {
  topic: { keyOf: (t) => [t.name], directions: ["asc"] },
  partitions: { keyOf: (t) => [t.partitions, t.name], directions: ["desc", "asc"] },
};

/** Sorted topic rows per cluster snapshot (immutable: one per cycle, or the last good one of a stale cluster). */
const sortedTopics = new WeakMap<ClusterSnapshot, Map<ClusterTopicSort, KeyedRow<ClusterTopicView>[]>>();

/** GET /api/clusters: every cluster with the first page of its topics (`topicsPage`; more from /api/clusters/{cluster}/topics). */
export function pageClusterViews(snapshot: Snapshot, now: number, request: PageRequest<ClusterTopicSort>) {
  return snapshot.clusters.map((c) => {
    const { topics, page } = pageTopicsOf(c, request);
    return { ...describeCluster(c, now), topics, topicsPage: page };
  });
}

/** GET /api/clusters/{cluster}/topics: one page of a cluster's topics; 404 naming the clusters for an unknown one. */
export function pageClusterTopics(snapshot: Snapshot, alias: string, request: PageRequest<ClusterTopicSort>) {
  const cluster = snapshot.clusters.find((c) => c.alias === alias);
  if (!cluster) throw new NotFoundError(`no cluster "${alias}"; known clusters: ${snapshot.clusters.map((c) => c.alias).join(", ") || "none"}`);
  return { cluster: alias, dataAt: cluster.dataAt, ...pageTopicsOf(cluster, request) };
}

function pageTopicsOf(c: ClusterSnapshot, request: PageRequest<ClusterTopicSort>) {
  let bySort = sortedTopics.get(c);
  if (!bySort) sortedTopics.set(c, (bySort = new Map()));
  let sorted = bySort.get(request.sort);
  if (!sorted) bySort.set(request.sort, (sorted = sortRows(c.topics.map(reshapeTopic), topicOrders[request.sort])));
  const wanted = parseTopicQuery(request.q);
  const matching = filterRows(sorted, wanted && ((t) => wanted.topicMatches(t.name, t.name) && (wanted.partition === null || t.partitions > wanted.partition)));
  const { items, page } = takePage(matching, topicOrders[request.sort], request, sorted.length);
  return { topics: items, page };
}

/** A cluster's reachability, data age and counts (everything but its topic rows). */
function describeCluster(c: ClusterSnapshot, now: number): Omit<ClusterView, "topics"> {
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
    groups: c.groups.length,
    unknownGroups: c.groups.filter((g) => g.error !== null).length,
    unknownPartitions: partitions.filter((p) => p.logStart === null || p.logEnd === null).length,
    underReplicated: partitions.filter((p) => p.isr.length < p.replicas.length).length,
    offline: partitions.filter((p) => p.leader === null).length,
  };
}

function reshapeTopic(t: TopicState): ClusterTopicView {
  return {
    name: t.name,
    topicId: t.topicId,
    internal: t.internal || t.name.startsWith("__") || t.name.endsWith(".internal"),
    partitions: t.partitions.length,
    logEndTotal: t.partitions.reduce((s, p) => s + (p.logEnd ?? 0n), 0n),
    logStartTotal: t.partitions.reduce((s, p) => s + (p.logStart ?? 0n), 0n),
  };
}
