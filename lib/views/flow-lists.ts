import type { CheckpointPoint, Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import { listPartitionRows, listTopicRows, summarizeFlow, type FlowSummary, type TopicRow } from "./flows";
import { filterRows, sortRows, takePage, type KeyedRow, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

/** The sort orders of a flow's partition and topic lists. */
export const flowListSorts = ["lag", "lagSeconds", "topic"] as const;
export type FlowListSort = (typeof flowListSorts)[number];

/** `q`: part of a topic name (Kafka's legal characters, at most 249), optionally `/<partition>`. */
export const topicQuery = {
  pattern: /^[A-Za-z0-9._-]{1,249}(\/\d{1,9})?$/,
  describe: "part of a topic name ([A-Za-z0-9._-], up to 249 characters), optionally followed by /<partition> (e.g. orders/3)",
};

/**
 * A partition row is about 540 bytes of JSON, a topic row 220 (measured on a 10,000-partition flow,
 * tests/unit/api/list-routes.test.ts). Defaults: 100 partitions and the first 50 topics, about 66 KB with the
 * summary, far under 256 KB with the page's checkpoints; serializing it is what a request costs (≈ 1 ms), so a
 * larger default would cost every caller of the default page. 5,000 rows (2.7 MB) at most.
 */
export const flowPartitionList: ListSpec<FlowListSort> = { list: "flow-partitions", sorts: flowListSorts, defaultSort: "lag", defaultLimit: 100, maxLimit: 5000, query: topicQuery };
export const flowTopicList: ListSpec<FlowListSort> = { list: "flow-topics", sorts: flowListSorts, defaultSort: "lag", defaultLimit: 50, maxLimit: 5000, query: topicQuery };

export type FlowPartitionRow = ReturnType<typeof listPartitionRows>[number];

const partitionOrders: Record<FlowListSort, SortOrder<FlowPartitionRow>> = {
  lag: { keyOf: (r) => [r.lag, r.topic, r.partition], directions: ["desc", "asc", "asc"] },
  lagSeconds: { keyOf: (r) => [r.lagSeconds, r.topic, r.partition], directions: ["desc", "asc", "asc"] },
  topic: { keyOf: (r) => [r.topic, r.partition], directions: ["asc", "asc"] },
};

const topicOrders: Record<FlowListSort, SortOrder<TopicRow>> = {
  lag: { keyOf: (r) => [r.lag, r.topic], directions: ["desc", "asc"] },
  lagSeconds: { keyOf: (r) => [r.lagSeconds, r.topic], directions: ["desc", "asc"] },
  topic: { keyOf: (r) => [r.topic], directions: ["asc"] },
};

/** What the flow's pages and routes need of one cycle, computed on first use and kept with the cycle's snapshot. */
interface FlowLists {
  summary?: FlowSummary;
  partitionRows?: FlowPartitionRow[];
  topicRows?: TopicRow[];
  partitionsBy: Map<FlowListSort, KeyedRow<FlowPartitionRow>[]>;
  topicsBy: Map<FlowListSort, KeyedRow<TopicRow>[]>;
  checkpoints?: Map<string, CheckpointPoint[]>;
  /** Rows matching a search, per list, sort and `q` (oldest search dropped first). */
  searches: Map<string, readonly KeyedRow<unknown>[]>;
}

/** Per snapshot (one per cycle) and flow id: a request at 10,000 partitions is a slice, not a sort. */
const memo = new WeakMap<Snapshot, Map<string, FlowLists>>();

function listsOf(snapshot: Snapshot, flow: Flow): FlowLists {
  let byFlow = memo.get(snapshot);
  if (!byFlow) memo.set(snapshot, (byFlow = new Map()));
  let lists = byFlow.get(flow.id);
  if (!lists) byFlow.set(flow.id, (lists = { partitionsBy: new Map(), topicsBy: new Map(), searches: new Map() }));
  return lists;
}

/** The flow's summary (totals, partial data, task states), once per cycle. */
export function readFlowSummary(snapshot: Snapshot, flow: Flow): FlowSummary {
  const lists = listsOf(snapshot, flow);
  return (lists.summary ??= summarizeFlow(snapshot, flow));
}

/** The flow's per-topic rows (sums over partitions, the oldest unreplicated record's age), once per cycle. */
export function readFlowTopicRows(snapshot: Snapshot, flow: Flow): TopicRow[] {
  const lists = listsOf(snapshot, flow);
  return (lists.topicRows ??= listTopicRows(flow, snapshot.takenAt));
}

/** One page of the flow's partition rows. */
export function pageFlowPartitions(snapshot: Snapshot, flow: Flow, request: PageRequest<FlowListSort>) {
  const lists = listsOf(snapshot, flow);
  let sorted = lists.partitionsBy.get(request.sort);
  if (!sorted) lists.partitionsBy.set(request.sort, (sorted = sortRows((lists.partitionRows ??= listPartitionRows(flow, snapshot.takenAt)), partitionOrders[request.sort])));
  const all = sorted;
  const matching = rememberMatches(lists, request, () => {
    const wanted = parseTopicQuery(request.q);
    return filterRows(all, wanted && ((r) => wanted.topicMatches(r.topic, r.targetTopic) && (wanted.partition === null || r.partition === wanted.partition)));
  });
  return takePage(matching, partitionOrders[request.sort], request, sorted.length);
}

/** One page of the flow's topic rows; `q` with a partition keeps the topics that have that partition. */
export function pageFlowTopics(snapshot: Snapshot, flow: Flow, request: PageRequest<FlowListSort>) {
  const lists = listsOf(snapshot, flow);
  let sorted = lists.topicsBy.get(request.sort);
  if (!sorted) lists.topicsBy.set(request.sort, (sorted = sortRows(readFlowTopicRows(snapshot, flow), topicOrders[request.sort])));
  const all = sorted;
  const matching = rememberMatches(lists, request, () => {
    const wanted = parseTopicQuery(request.q);
    return filterRows(all, wanted && ((r) => wanted.topicMatches(r.topic, r.targetTopic) && (wanted.partition === null || r.partitions > wanted.partition)));
  });
  return takePage(matching, topicOrders[request.sort], request, sorted.length);
}

/** Searches repeat while an operator pages: the rows matching a `q` are kept for the cycle (the last 32 searches). */
const rememberedSearches = 32;

function rememberMatches<Row>(lists: FlowLists, request: PageRequest<FlowListSort>, filter: () => readonly KeyedRow<Row>[]): readonly KeyedRow<Row>[] {
  if (request.q === null) return filter();
  const key = `${request.list}\u0000${request.sort}\u0000${request.q}`;
  const known = lists.searches.get(key);
  if (known) return known as readonly KeyedRow<Row>[];
  const found = filter();
  if (lists.searches.size >= rememberedSearches) lists.searches.delete(lists.searches.keys().next().value!);
  lists.searches.set(key, found);
  return found;
}

/** `orders` → topics whose source or target name contains it (any case); `orders/3` → and partition 3. */
export function parseTopicQuery(q: string | null): { topicMatches: (topic: string, targetTopic: string) => boolean; partition: number | null } | null {
  if (q === null) return null;
  const slash = q.indexOf("/");
  const needle = (slash < 0 ? q : q.slice(0, slash)).toLowerCase();
  return {
    topicMatches: (topic, targetTopic) => topic.toLowerCase().includes(needle) || targetTopic.toLowerCase().includes(needle),
    partition: slash < 0 ? null : Number(q.slice(slash + 1)),
  };
}

/** The first page of the flow's topics in the order and filter of a partition page request (GET /api/flows/{flow}). */
export function pageFirstFlowTopics(snapshot: Snapshot, flow: Flow, partitions: PageRequest<FlowListSort>) {
  return pageFlowTopics(snapshot, flow, { ...partitions, list: flowTopicList.list, limit: flowTopicList.defaultLimit, after: null });
}

/** The latest checkpoints (every group) of the given partitions, from an index built once per cycle. */
export function listCheckpointsOf(snapshot: Snapshot, flow: Flow, rows: readonly Pick<FlowPartition, "topic" | "partition">[]): CheckpointPoint[] {
  const lists = listsOf(snapshot, flow);
  if (!lists.checkpoints) {
    const index = new Map<string, CheckpointPoint[]>();
    for (const c of flow.checkpoints) {
      const key = `${c.topic}\u0000${c.partition}`;
      const list = index.get(key);
      if (list) list.push(c);
      else index.set(key, [c]);
    }
    lists.checkpoints = index;
  }
  const index = lists.checkpoints;
  return rows.flatMap((r) => index.get(`${r.topic}\u0000${r.partition}`) ?? []);
}
