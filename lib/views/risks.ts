import type { RiskRecord } from "@/lib/alerts/types";

/** The Risks page and API: every standing risk, and how many each cluster and each group carries. */
export interface RisksView {
  risks: RiskRecord[];
  byCluster: { cluster: string; risks: number }[];
  byGroup: { cluster: string; group: string; risks: number }[];
}

/** Risks ordered by severity (warning before info), then cluster and key; with the counts. */
export function shapeRisksView(risks: readonly RiskRecord[]): RisksView {
  const rank = { critical: 0, warning: 1, info: 2 } as const;
  const sorted = [...risks].sort((a, b) => rank[a.severity] - rank[b.severity] || (a.cluster ?? "").localeCompare(b.cluster ?? "") || a.key.localeCompare(b.key));
  return { risks: sorted, byCluster: countBy(sorted, (r) => r.cluster ?? "", (cluster, n) => ({ cluster, risks: n })), byGroup: countGroups(sorted) };
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
