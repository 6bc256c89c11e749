import type { TopicRow } from "./flows";

/** The flow page's topic table orders (`?sort=`). */
export const topicTableSorts = ["lag-desc", "lag-asc", "name"] as const;
export type TopicTableSort = (typeof topicTableSorts)[number];

/** How many rows the table shows (`?show=`); 0 is every topic. */
export const topicTableSizes = [10, 25, 100, 0] as const;
export type TopicTableSize = (typeof topicTableSizes)[number];

/** What the table shows: a search, an order, how many rows, whether internal topics are hidden. */
export interface TopicTableView {
  q: string;
  sort: TopicTableSort;
  show: TopicTableSize;
  hideInternal: boolean;
}

export const defaultTopicTableView: TopicTableView = { q: "", sort: "lag-desc", show: 25, hideInternal: true };

/** A search longer than any topic name (249) matches nothing: cut there, so a pasted page cannot cost more. */
const maxQueryLength = 249;

type SearchParams = Record<string, string | string[] | undefined>;

const first = (raw: string | string[] | undefined) => (Array.isArray(raw) ? raw[0] : raw);

/**
 * The table's view from the page's URL (`?q=&sort=&show=&internal=show`): kept in the URL like the time range, so a
 * shared link and the auto-refresh show the same rows. A page does not refuse a bad value: it falls back to the default.
 */
export function parseTopicTableView(search: SearchParams): TopicTableView {
  const sort = topicTableSorts.find((s) => s === first(search.sort)) ?? defaultTopicTableView.sort;
  const rawShow = first(search.show);
  const show = rawShow === "all" ? 0 : (topicTableSizes.find((n) => n !== 0 && String(n) === rawShow) ?? defaultTopicTableView.show);
  return { q: (first(search.q) ?? "").trim().slice(0, maxQueryLength), sort, show, hideInternal: first(search.internal) !== "show" };
}

/** The URL parameters of a view: only what differs from the default (the default view is the bare URL). */
export function describeTopicTableParams(view: TopicTableView): Record<"q" | "sort" | "show" | "internal", string | null> {
  return {
    q: view.q === "" ? null : view.q,
    sort: view.sort === defaultTopicTableView.sort ? null : view.sort,
    show: view.show === defaultTopicTableView.show ? null : view.show === 0 ? "all" : String(view.show),
    internal: view.hideInternal ? null : "show",
  };
}

/** The rows a view shows, how many match it, and how many topics the flow has. */
export interface TopicTableRows {
  rows: TopicRow[];
  matching: number;
  total: number;
}

/** Per cycle's topic rows (flow-lists.ts keeps one array per snapshot and flow): each order sorted once. */
const sortedOf = new WeakMap<readonly TopicRow[], Map<TopicTableSort, TopicRow[]>>();

const lagOrder = (a: TopicRow, b: TopicRow) => (a.lag > b.lag ? 1 : a.lag < b.lag ? -1 : 0);
const orders: Record<TopicTableSort, (a: TopicRow, b: TopicRow) => number> = {
  "lag-desc": (a, b) => lagOrder(b, a) || a.topic.localeCompare(b.topic),
  "lag-asc": (a, b) => lagOrder(a, b) || a.topic.localeCompare(b.topic),
  name: (a, b) => a.topic.localeCompare(b.topic),
};

/**
 * The rows of the flow page's topic table for a view. Only these reach the page: at 10,000 partitions a flow has
 * hundreds or thousands of topics, and handing all of them (with their sparklines) to a client table cost every
 * request the serialization of all of them, for the 25 it showed.
 */
export function selectTopicTableRows(topics: readonly TopicRow[], view: TopicTableView): TopicTableRows {
  let byOrder = sortedOf.get(topics);
  if (!byOrder) sortedOf.set(topics, (byOrder = new Map()));
  let sorted = byOrder.get(view.sort);
  if (!sorted) byOrder.set(view.sort, (sorted = [...topics].sort(orders[view.sort])));
  const q = view.q.toLowerCase();
  const matches = (r: TopicRow) => (!view.hideInternal || !r.internal) && (q === "" || r.topic.toLowerCase().includes(q) || r.targetTopic.toLowerCase().includes(q));
  const matched = q === "" && !view.hideInternal ? sorted : sorted.filter(matches);
  return { rows: view.show === 0 ? matched : matched.slice(0, view.show), matching: matched.length, total: topics.length };
}
