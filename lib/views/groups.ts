import { getServingRuntime } from "@/lib/pipeline/runtime";
import { BadRequestError, NotFoundError } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import type { TranslationSeriesPoint } from "@/lib/store";
import {
  buildFailoverPlan,
  type FailoverModeName,
  failoverModes,
  type FailoverPlan,
  type FlowTranslation,
  formatResetCsv,
  type GroupTranslation,
  type PartitionTranslation,
  type UncheckpointedGroup,
  type UntranslatableReasonName,
} from "@/lib/translation";
import { lookupFlow } from "./flow-page";
import { parseTopicQuery, topicQuery } from "./flow-lists";
import { filterRows, parsePageRequest, sortRows, takePage, type KeyedRow, type ListSpec, type PageRequest, type SortOrder } from "./pagination";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { readLatestModel, requireFlow, requireReadModel, TranslationUnavailableError } from "./runtime-data";

/** The latest cycle's translation of a flow, as the pipeline computed it (503 before the first cycle, 404 for an unknown flow). */
export function readFlowTranslation(flowId: string): FlowTranslation {
  const model = requireReadModel();
  return requireTranslation(model, requireFlow(model.snapshot, flowId).id);
}

/** A flow's translation in a read model; when this cycle's translation failed, a 503 that says why. */
export function requireTranslation(model: ReadModel, flowId: string): FlowTranslation {
  const found = model.translations.get(flowId);
  if (found) return found;
  throw new TranslationUnavailableError(flowId, model.translationErrors.get(flowId) ?? "not translated this cycle");
}

/** A group of a translation, or a 404 naming the groups MM2 checkpoints on the flow. */
export function requireGroup(ft: FlowTranslation, groupId: string): GroupTranslation {
  const group = ft.groups.find((g) => g.group === groupId);
  if (group) return group;
  const known = ft.groups.map((g) => g.group);
  const other = ft.uncheckpointedGroups.find((g) => g.group === groupId);
  const excluded = other
    ? ` ("${groupId}" is a ${other.groupType} group: ${other.note})`
    : ft.excludedGroups.includes(groupId)
      ? ` ("${groupId}" exists but MM2's groups filter excludes it)`
      : "";
  throw new NotFoundError(`no checkpointed consumer group "${groupId}" on flow ${ft.flow}${excluded}; known: ${known.join(", ") || "none"}`);
}

/** The `mode` query parameter of the failover CSV (400 listing the allowed values otherwise). */
export function parseFailoverMode(raw: string | null): FailoverModeName {
  const found = failoverModes.find((m) => m === raw);
  if (found) return found;
  throw new BadRequestError(`query parameter "mode" must be one of ${failoverModes.map((m) => `"${m}"`).join(", ")}, got ${raw === null ? "nothing" : `"${raw}"`}`);
}

/** Page of one group: `/flows/<flow>/groups/<group>`. */
export function groupPagePath(flowId: string, group: string): string {
  return `/flows/${encodeURIComponent(flowId)}/groups/${encodeURIComponent(group)}`;
}

/** The failover CSV of a group in one mode. */
export function failoverCsvPath(flowId: string, group: string, mode: FailoverModeName): string {
  return `/api/flows/${encodeURIComponent(flowId)}/groups/${encodeURIComponent(group)}/failover.csv?mode=${mode}`;
}

/** decodeURIComponent for a path segment, leaving malformed escapes as they are. */
export function decodeGroupParam(raw: string): string {
  try {
    return raw.includes("%") ? decodeURIComponent(raw) : raw;
  } catch {
    return raw;
  }
}

export const groupSorts = ["group", "replay", "lag"] as const;
export type GroupSort = (typeof groupSorts)[number];

/** A group row is 0.3–3 KB (its first untranslatable partitions included): 100 stay under 256 KB. */
export const groupList: ListSpec<GroupSort> = {
  list: "groups",
  sorts: groupSorts,
  defaultSort: "group",
  defaultLimit: 100,
  maxLimit: 1000,
  query: { pattern: /^[^\u0000-\u001f]{1,255}$/, describe: "part of a group id (up to 255 characters)" },
};

/** The list shows a group's first untranslatable partitions; `totals.untranslatable` counts them all, its own route lists them. */
const untranslatableShown = 20;

type GroupSummary = ReturnType<typeof summarizeGroup>;

/** By name; or records replayed on failover now, or the group's lag, largest first (the name breaks ties). */
const groupOrders: Record<GroupSort, SortOrder<GroupSummary>> = {
  group: { keyOf: (g) => [g.group], directions: ["asc"] },
  replay: { keyOf: (g) => [g.totals.failoverReplayRecords, g.group], directions: ["desc", "asc"] },
  lag: { keyOf: (g) => [g.totals.groupLag, g.group], directions: ["desc", "asc"] },
};

/** Sorted group rows per translation (one per flow and cycle) and sort. */
const sortedGroups = new WeakMap<FlowTranslation, Map<GroupSort, KeyedRow<GroupSummary>[]>>();

function summarizeGroup(g: GroupTranslation) {
  const untranslatable = listUntranslatable(g);
  return {
    group: g.group,
    groupType: g.groupType,
    state: g.state,
    members: g.members,
    unknown: g.unknown,
    totals: g.totals,
    untranslatable: untranslatable.length > untranslatableShown ? untranslatable.slice(0, untranslatableShown) : untranslatable,
  };
}

/** GET /api/flows/{flow}/groups body: one page of checkpointed groups with totals and their first untranslatable partitions. */
export function listGroupSummaries(ft: FlowTranslation, request: PageRequest<GroupSort> = parsePageRequest(new URLSearchParams(), groupList)) {
  let bySort = sortedGroups.get(ft);
  if (!bySort) sortedGroups.set(ft, (bySort = new Map()));
  let sorted = bySort.get(request.sort);
  if (!sorted) bySort.set(request.sort, (sorted = sortRows(ft.groups.map(summarizeGroup), groupOrders[request.sort])));
  const needle = request.q?.toLowerCase() ?? null;
  const matching = filterRows(sorted, needle === null ? null : (g) => g.group.toLowerCase().includes(needle));
  const { items, page } = takePage(matching, groupOrders[request.sort], request, sorted.length);
  return {
    flow: ft.flow,
    source: ft.source,
    target: ft.target,
    at: ft.at,
    syncsLoaded: ft.syncsLoaded,
    totals: ft.totals,
    excludedGroups: ft.excludedGroups,
    uncheckpointedGroups: ft.uncheckpointedGroups,
    groups: items,
    page,
  };
}

const groupPartitionSorts = ["replay", "lag", "topic"] as const;
type GroupPartitionSort = (typeof groupPartitionSorts)[number];

/**
 * A group's partitions (a group may read thousands): a row with its translation is about 0.6–0.9 KB of JSON and each
 * plan adds about 0.1 KB per partition, so 200 rows stay under 256 KB; the failover CSV holds the whole plan.
 */
export const groupPartitionList: ListSpec<GroupPartitionSort> = {
  list: "group-partitions",
  sorts: groupPartitionSorts,
  defaultSort: "replay",
  defaultLimit: 200,
  maxLimit: 5000,
  query: topicQuery,
};

/** Records replayed on failover now (MM2's offsets: the `mm2` plan) or the group's lag, largest and unknown first. */
const groupPartitionOrders: Record<GroupPartitionSort, SortOrder<PartitionTranslation>> = {
  replay: { keyOf: (p) => [p.failoverReread?.records ?? null, p.topic, p.partition], directions: ["desc", "asc", "asc"] },
  lag: { keyOf: (p) => [p.groupLag, p.topic, p.partition], directions: ["desc", "asc", "asc"] },
  topic: { keyOf: (p) => [p.topic, p.partition], directions: ["asc", "asc"] },
};

/** A group's sorted partitions and whole plans, per group of a cycle's translation (a new cycle, new objects). */
const groupDetails = new WeakMap<GroupTranslation, { plans?: Record<FailoverModeName, FailoverPlan>; by: Map<GroupPartitionSort, KeyedRow<PartitionTranslation>[]> }>();

/** `q` as a flow's partition lists read it (flow-lists.ts parseTopicQuery); null matches every row. */
function matchGroupPartitions(q: string | null): ((p: PartitionTranslation) => boolean) | null {
  const query = parseTopicQuery(q);
  if (query === null) return null;
  return (p) => query.topicMatches(p.topic, p.targetTopic ?? "") && (query.partition === null || query.partition === p.partition);
}

function detailsOf(group: GroupTranslation) {
  let details = groupDetails.get(group);
  if (!details) groupDetails.set(group, (details = { by: new Map() }));
  return details;
}

/**
 * GET /api/flows/{flow}/groups/{group} body: one page of the group's partitions (translation, checkpoint, ideal
 * offset, re-read counts), their untranslatable ones, and both failover plans: each plan's totals over the whole group
 * (`rowCount`, `omittedCount`, `rereadRecords`) with the rows and omissions of this page's partitions.
 */
export function describeGroup(
  ft: FlowTranslation,
  group: GroupTranslation,
  request: PageRequest<GroupPartitionSort>,
) {
  const details = detailsOf(group);
  const order = groupPartitionOrders[request.sort];
  let sorted = details.by.get(request.sort);
  if (!sorted) details.by.set(request.sort, (sorted = sortRows(group.partitions, order)));
  const matching = filterRows(sorted, matchGroupPartitions(request.q));
  const { items, page } = takePage(matching, order, request, sorted.length);
  const whole = (details.plans ??= buildBothPlans(ft.flow, group));
  const shown = buildBothPlans(ft.flow, { ...group, partitions: items });
  const planOf = (mode: FailoverModeName) => ({
    ...shown[mode],
    rowCount: whole[mode].rows.length,
    omittedCount: whole[mode].omitted.length,
    rereadRecords: whole[mode].rereadRecords,
  });
  return {
    flow: ft.flow,
    target: ft.target,
    at: ft.at,
    group: group.group,
    groupType: group.groupType,
    state: group.state,
    members: group.members,
    unknown: group.unknown,
    totals: group.totals,
    partitions: items,
    page,
    untranslatable: listUntranslatable({ ...group, partitions: items }),
    plans: { mm2: planOf("mm2"), precise: planOf("precise") },
  };
}

/** Both failover plans of a group. */
function buildBothPlans(flowId: string, group: GroupTranslation): Record<FailoverModeName, FailoverPlan> {
  return { mm2: buildFailoverPlan(flowId, group, "mm2"), precise: buildFailoverPlan(flowId, group, "precise") };
}

/** Partitions MM2 cannot translate, with the reason. */
export function listUntranslatable(g: GroupTranslation): { topic: string; partition: number; reason: UntranslatableReasonName; detail: string }[] {
  return g.partitions.flatMap((p) => (p.translation.kind === "untranslatable" ? [{ topic: p.topic, partition: p.partition, reason: p.translation.reason, detail: p.translation.detail }] : []));
}

/** What the failover CSV route answers: the file, or (nothing to plan) a reason. */
export type FailoverCsv =
  | { kind: "csv"; body: string; filename: string; headers: Record<string, string> }
  | { kind: "empty"; message: string };

/**
 * The failover CSV of a group. The body holds only what kafka-consumer-groups' CSV parser accepts
 * (failover-plan.ts); explanations go into X-Gapwatch-* headers (ASCII, percent-encoded where needed).
 */
export function renderFailoverCsv(ft: FlowTranslation, group: GroupTranslation, mode: FailoverModeName): FailoverCsv {
  const plan = buildFailoverPlan(ft.flow, group, mode);
  const omitted = plan.omitted.map((o) => `${o.topic}/${o.partition}: ${o.reason}`);
  if (plan.rows.length === 0) {
    return { kind: "empty", message: `group "${group.group}" has no partition with a target offset in mode "${mode}"${omitted.length ? `; ${omitted.join("; ")}` : ""}` };
  }
  const sources = new Map<string, number>();
  for (const r of plan.rows) sources.set(r.source, (sources.get(r.source) ?? 0) + 1);
  const safeName = group.group.replace(/[^A-Za-z0-9._-]/g, "_");
  return {
    kind: "csv",
    body: formatResetCsv(plan.rows),
    filename: `${safeName}-${mode}-failover.csv`,
    headers: {
      "x-gapwatch-flow": encodeHeader(ft.flow),
      "x-gapwatch-group": encodeHeader(group.group),
      "x-gapwatch-target-cluster": encodeHeader(ft.target),
      "x-gapwatch-plan-mode": mode,
      "x-gapwatch-plan-rows": String(plan.rows.length),
      "x-gapwatch-plan-sources": [...sources].map(([s, n]) => `${s}=${n}`).join(", "),
      "x-gapwatch-reread-records": plan.rereadRecords.toString(),
      "x-gapwatch-plan-omitted": encodeHeader(omitted.join("; ") || "none"),
      "x-gapwatch-usage": encodeHeader(`kafka-consumer-groups.sh --bootstrap-server <${ft.target} brokers> --reset-offsets --from-file ${safeName}-${mode}-failover.csv --group ${group.group} --execute`),
    },
  };
}

/** Header values must be ASCII without control characters: percent-encode anything else. */
function encodeHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]|%/g, (c) => encodeURIComponent(c));
}

/** A point of the re-read vs lag chart (numbers: chart-only precision). */
export interface RereadChartPoint {
  at: number;
  reread: number | null;
  failoverReread: number | null;
  lag: number | null;
}

/** The chart's series: the group's total, then one per partition (`topic/partition`). */
export interface RereadChartSeries {
  key: string;
  label: string;
  points: RereadChartPoint[];
}

/** Stored samples of a group shaped for the chart: totals per time, and per partition. */
export function shapeRereadSeries(samples: readonly TranslationSeriesPoint[]): RereadChartSeries[] {
  const byPartition = new Map<string, RereadChartPoint[]>();
  const totals = new Map<number, { reread: bigint; failover: bigint; lag: bigint }>();
  const num = (v: bigint | null) => (v === null ? null : Number(v));
  for (const s of samples) {
    const key = `${s.topic}/${s.partition}`;
    const list = byPartition.get(key) ?? [];
    list.push({ at: s.at, reread: num(s.reread), failoverReread: num(s.failoverReread), lag: num(s.groupLag) });
    byPartition.set(key, list);
    const t = totals.get(s.at) ?? { reread: 0n, failover: 0n, lag: 0n };
    t.reread += s.reread !== null && s.reread > 0n ? s.reread : 0n;
    t.failover += s.failoverReread !== null && s.failoverReread > 0n ? s.failoverReread : 0n;
    t.lag += s.groupLag ?? 0n;
    totals.set(s.at, t);
  }
  const total: RereadChartSeries = {
    key: "total",
    label: "All partitions",
    points: [...totals].sort(([a], [b]) => a - b).map(([at, t]) => ({ at, reread: Number(t.reread), failoverReread: Number(t.failover), lag: Number(t.lag) })),
  };
  return [total, ...[...byPartition].map(([key, points]) => ({ key, label: key, points }))];
}

/** What the groups page of a flow shows. */
export type GroupsPageData = { kind: "no-data" } | { kind: "flow-not-found"; id: string; known: string[] } | { kind: "ok"; takenAt: number; translation: FlowTranslation };

/** Loads the groups page of a flow from its raw `[flow]` path segment. */
export function loadGroupsPage(rawFlow: string): GroupsPageData {
  const model = readLatestModel();
  if (!model) return { kind: "no-data" };
  const lookup = lookupFlow(model.snapshot, rawFlow);
  if (!lookup.found) return { kind: "flow-not-found", id: lookup.id, known: lookup.known };
  return { kind: "ok", takenAt: model.snapshot.takenAt, translation: requireTranslation(model, lookup.flow.id) };
}

/** What the page of one group shows. */
export type GroupPageData =
  | Exclude<GroupsPageData, { kind: "ok" }>
  | { kind: "group-not-found"; flow: string; group: string; known: string[]; excluded: boolean }
  | { kind: "uncheckpointed"; takenAt: number; translation: FlowTranslation; group: UncheckpointedGroup }
  | { kind: "ok"; takenAt: number; translation: FlowTranslation; group: GroupTranslation; detail: GroupDetail; series: RereadChartSeries[] };

type GroupDetail = ReturnType<typeof describeGroup>;

/** The page's list request from its search parameters; a bad one falls back to the first page and says why. */
export function readGroupPageRequest(search: Record<string, string | string[] | undefined>): { request: PageRequest<GroupPartitionSort>; problem: string | null } {
  const params = new URLSearchParams();
  for (const name of ["sort", "q", "cursor", "limit"]) {
    const value = search[name];
    if (typeof value === "string") params.set(name, value);
  }
  try {
    return { request: parsePageRequest(params, groupPartitionList), problem: null };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    return { request: parsePageRequest(new URLSearchParams(), groupPartitionList), problem: err.message };
  }
}

/**
 * Loads one group's page: one page of its partitions (largest replay first by default), both plans with their
 * totals, and the re-read vs lag series over [from, to] of the whole group and of the page's partitions.
 */
export async function loadGroupPage(
  rawFlow: string,
  rawGroup: string,
  range: { from: number; to: number },
  request: PageRequest<GroupPartitionSort>,
): Promise<GroupPageData> {
  const page = loadGroupsPage(rawFlow);
  if (page.kind !== "ok") return page;
  const ft = page.translation;
  const groupId = decodeGroupParam(rawGroup);
  const group = ft.groups.find((g) => g.group === groupId);
  const uncheckpointed = ft.uncheckpointedGroups.find((g) => g.group === groupId);
  if (uncheckpointed) return { kind: "uncheckpointed", takenAt: page.takenAt, translation: ft, group: uncheckpointed };
  if (!group) return { kind: "group-not-found", flow: ft.flow, group: groupId, known: ft.groups.map((g) => g.group), excluded: ft.excludedGroups.includes(groupId) };
  const detail = describeGroup(ft, group, request);
  const shown = new Set(detail.partitions.map((p) => `${p.topic}/${p.partition}`));
  const series = shapeRereadSeries(await readSeriesOrNothing(ft.flow, group.group, range)).filter((s) => s.key === "total" || shown.has(s.key));
  return { kind: "ok", takenAt: page.takenAt, translation: ft, group, detail, series };
}

/** The chart is secondary: a failing series read is logged and shown as "no history" instead of failing the page. */
async function readSeriesOrNothing(flow: string, group: string, range: { from: number; to: number }): Promise<TranslationSeriesPoint[]> {
  try {
    return await getServingRuntime().store.readTranslationSeries(flow, group, range.from, range.to);
  } catch (err) {
    getLogger("views.groups").warn({ err: err instanceof Error ? err.message : String(err), flow, group }, "reading the translation series failed");
    return [];
  }
}
