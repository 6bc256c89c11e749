import type { Flow, Snapshot } from "@/lib/collector/types";
import { compareTopicSettings, type SettingDiff } from "@/lib/detect/topic-drift";
import { parseTopicQuery, topicQuery } from "./flow-lists";
import { filterRows, sortRows, takePage, type KeyedRow, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

/** Where a source topic stands in a flow: copied, matched but absent on the target, left out by the filter, or internal. */
export type CoverageStatus = "missing-on-target" | "replicated" | "not-matched" | "internal";

/** One source topic of a flow. */
export interface CoverageRow {
  topic: string;
  status: CoverageStatus;
  /** The remote topic's name on the target (matched topics only). */
  targetTopic: string | null;
  /** The rule that leaves the topic out (not matched, internal); null when the filter is unknown. */
  reason: string | null;
  /** Matched and missing on the target: since when (epoch ms). */
  missingSince: number | null;
  /** Replicated: source against target, every compared setting (drift). */
  settings: SettingDiff[];
  /** Replicated: the settings weaker on the target. */
  weaker: string[];
}

/** The flow's topic coverage and drift: counts over every source topic, and the rows. */
export interface FlowCoverage {
  flow: string;
  /** MM2's `topics` (the first source connector's) and whether Gapwatch evaluates the filter exactly. */
  filter: { topics: string; known: boolean };
  /** False while the collector has not judged the flow's topics (no coverage read). */
  known: boolean;
  counts: Record<CoverageStatus, number> & { drifted: number };
  rows: CoverageRow[];
}

const statusRank: Record<CoverageStatus, number> = { "missing-on-target": 0, replicated: 1, "not-matched": 2, internal: 3 };

/** The sort orders of the coverage list. */
export const coverageSorts = ["status", "topic"] as const;
export type CoverageSort = (typeof coverageSorts)[number];

const orders: Record<CoverageSort, SortOrder<CoverageRow>> = {
  // Missing first, then drifted replicated topics, then the rest: what needs action leads.
  status: { keyOf: (r) => [statusRank[r.status], r.weaker.length, r.topic], directions: ["asc", "desc", "asc"] },
  topic: { keyOf: (r) => [r.topic], directions: ["asc"] },
};

/** A row is about 1 KB of JSON with its settings: 100 by default, 2,000 at most. */
export const coverageList: ListSpec<CoverageSort> = { list: "flow-coverage", sorts: coverageSorts, defaultSort: "status", defaultLimit: 100, maxLimit: 2000, query: topicQuery };

/** Computed once per flow object (a cycle's flows are immutable and replaced whole). */
const computed = new WeakMap<Flow, { coverage: FlowCoverage; sorted: Map<CoverageSort, KeyedRow<CoverageRow>[]> }>();

/** Every source topic of the flow with its coverage status and, when replicated, its drift. */
export function readFlowCoverage(snapshot: Snapshot, flow: Flow): FlowCoverage {
  return entryOf(snapshot, flow).coverage;
}

/** GET /api/flows/{flow}/coverage: the counts and one page of rows (`q`: part of a topic name). */
export function pageFlowCoverage(snapshot: Snapshot, flow: Flow, request: PageRequest<CoverageSort>) {
  const entry = entryOf(snapshot, flow);
  let sorted = entry.sorted.get(request.sort);
  if (!sorted) entry.sorted.set(request.sort, (sorted = sortRows(entry.coverage.rows, orders[request.sort])));
  const wanted = parseTopicQuery(request.q);
  const matching = filterRows(sorted, wanted && ((r) => wanted.topicMatches(r.topic, r.targetTopic ?? r.topic)));
  const { flow: id, filter, known, counts } = entry.coverage;
  return { flow: id, filter, known, counts, ...takePage(matching, orders[request.sort], request, sorted.length) };
}

function entryOf(snapshot: Snapshot, flow: Flow) {
  let entry = computed.get(flow);
  if (!entry) computed.set(flow, (entry = { coverage: computeCoverage(snapshot, flow), sorted: new Map() }));
  return entry;
}

function computeCoverage(snapshot: Snapshot, flow: Flow): FlowCoverage {
  const sourceTopics = new Map((snapshot.clusters.find((c) => c.alias === flow.source)?.topics ?? []).map((t) => [t.name, t]));
  const targetTopics = new Map((snapshot.clusters.find((c) => c.alias === flow.target)?.topics ?? []).map((t) => [t.name, t]));
  const coverage = flow.coverage;
  const missing = new Map((coverage?.missingOnTarget ?? []).map((m) => [m.topic, m.since]));
  const rows: CoverageRow[] = [];
  const matched = new Map<string, string>();
  for (const p of flow.partitions) matched.set(p.topic, p.targetTopic);
  for (const [topic, targetTopic] of matched) {
    const from = sourceTopics.get(topic);
    const to = targetTopics.get(targetTopic);
    const since = missing.get(topic);
    if (since !== undefined || to === undefined) {
      rows.push({ topic, status: "missing-on-target", targetTopic, reason: null, missingSince: since ?? null, settings: [], weaker: [] });
      continue;
    }
    const settings = from === undefined ? [] : compareTopicSettings(from, to);
    rows.push({ topic, status: "replicated", targetTopic, reason: null, missingSince: null, settings, weaker: settings.filter((s) => s.weaker).map((s) => s.setting) });
  }
  for (const u of coverage?.unmatched ?? []) {
    rows.push({ topic: u.topic, status: u.internal ? "internal" : "not-matched", targetTopic: null, reason: u.reason, missingSince: null, settings: [], weaker: [] });
  }
  const counts = { "missing-on-target": 0, replicated: 0, "not-matched": 0, internal: 0, drifted: 0 };
  for (const r of rows) {
    counts[r.status]++;
    if (r.weaker.length > 0) counts.drifted++;
  }
  return { flow: flow.id, filter: { topics: flow.topicsFilter, known: coverage?.filterKnown ?? false }, known: coverage !== undefined, counts, rows };
}
