import type { RiskRecord } from "@/lib/alerts/types";
import { filterRows, sortRows, takePage, type ListSpec, type PageInfo, type PageRequest, type SortOrder } from "./pagination";

/** The Risks page and API: every standing risk, and how many each cluster and each group carries. */
export interface RisksView {
  risks: RiskRecord[];
  byCluster: { cluster: string; risks: number }[];
  byGroup: { cluster: string; group: string; risks: number }[];
}

const rank = { critical: 0, warning: 1, info: 2 } as const;

/** Severity (warning before info), then cluster and key (unique): the order of the page and of the API's cursor. */
const riskOrder: SortOrder<RiskRecord> = { keyOf: (r) => [rank[r.severity], r.cluster ?? "", r.key], directions: ["asc", "asc", "asc"] };

/** Risks ordered by severity (warning before info), then cluster and key; with the counts. */
export function shapeRisksView(risks: readonly RiskRecord[]): RisksView {
  return countRisks(sortRows(risks, riskOrder).map((k) => k.row));
}

function countRisks(sorted: RiskRecord[]): RisksView {
  return { risks: sorted, byCluster: countBy(sorted, (r) => r.cluster ?? "", (cluster, n) => ({ cluster, risks: n })), byGroup: countGroups(sorted) };
}

/** A risk is about 0.5 KB of JSON: 200 and the counts stay under 256 KB. */
export const riskList: ListSpec<"severity"> = {
  list: "risks",
  sorts: ["severity"],
  defaultSort: "severity",
  defaultLimit: 200,
  maxLimit: 5000,
  query: { pattern: /^[^\u0000-\u001f]{1,255}$/, describe: "part of a topic, group or cluster name (up to 255 characters)" },
};

/** GET /api/risks: one page of the ordered risks (`q`: substring of topic, group or cluster), counts over all of them. */
export function pageRisksView(risks: readonly RiskRecord[], request: PageRequest<"severity">): RisksView & { page: PageInfo } {
  const sorted = sortRows(risks, riskOrder);
  const needle = request.q?.toLowerCase() ?? null;
  const matches = needle === null ? null : (r: RiskRecord) => [r.topic, r.group, r.cluster].some((v) => v !== null && v.toLowerCase().includes(needle));
  const { items, page } = takePage(filterRows(sorted, matches), riskOrder, request, sorted.length);
  return { ...countRisks(sorted.map((k) => k.row)), risks: items, page };
}

function countBy<T>(risks: readonly RiskRecord[], keyOf: (r: RiskRecord) => string, make: (key: string, n: number) => T): T[] {
  const counts = new Map<string, number>();
  for (const r of risks) counts.set(keyOf(r), (counts.get(keyOf(r)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => make(key, n));
}

function countGroups(risks: readonly RiskRecord[]): RisksView["byGroup"] {
  const withGroup = risks.filter((r) => r.group !== null);
  return countBy(withGroup, (r) => `${r.cluster ?? ""}\u0000${r.group}`, (key, n) => {
    const [cluster = "", group = ""] = key.split("\u0000");
    return { cluster, group, risks: n };
  });
}
