import { AlertState, type AlertRecord } from "@/lib/alerts/types";
import { FindingType } from "@/lib/detect/types";
import { BadRequestError } from "@/lib/errors";
import { parseTopicQuery, topicQuery } from "./flow-lists";
import { filterRows, sortRows, takePage, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

const states = Object.values(AlertState) as string[];
const types = Object.values(FindingType) as string[];

/** Parses `state`, `type` and `flow` query parameters; unknown values get a 400 listing the allowed ones. */
export function parseAlertFilter(params: URLSearchParams): { state?: string; type?: string; flow?: string } {
  const state = params.get("state") ?? undefined;
  const type = params.get("type") ?? undefined;
  const flow = params.get("flow") ?? undefined;
  if (state && !states.includes(state)) throw new BadRequestError(`state must be one of ${states.join(", ")}; got "${state}"`);
  if (type && !types.includes(type)) throw new BadRequestError(`type must be one of ${types.join(", ")}; got "${type}"`);
  if (flow !== undefined && !/^[A-Za-z0-9_.-]+->[A-Za-z0-9_.-]+$/.test(flow)) throw new BadRequestError(`flow must look like east->west; got "${flow}"`);
  return { state, type, flow };
}

export const alertSorts = ["lastSeen", "firstSeen"] as const;
export type AlertSort = (typeof alertSorts)[number];

/** An alert is 0.5–2 KB of JSON (evidence varies): 100 stay under 256 KB. */
export const alertList: ListSpec<AlertSort> = { list: "alerts", sorts: alertSorts, defaultSort: "lastSeen", defaultLimit: 100, maxLimit: 1000, query: topicQuery };

/** Newest first by the chosen time; the alert id breaks ties (a cycle re-sees every firing alert at once). */
const alertOrders: Record<AlertSort, SortOrder<AlertRecord>> = {
  lastSeen: { keyOf: (a) => [a.lastSeen, a.id], directions: ["desc", "asc"] },
  firstSeen: { keyOf: (a) => [a.firstSeen, a.id], directions: ["desc", "asc"] },
};

/** One page of alerts (already filtered by state, type and flow); `q` matches the alert's topic and partition. */
export function pageAlerts(alerts: readonly AlertRecord[], request: PageRequest<AlertSort>) {
  const order = alertOrders[request.sort];
  const wanted = parseTopicQuery(request.q);
  const matches = wanted && ((a: AlertRecord) => a.topic !== null && wanted.topicMatches(a.topic, a.topic) && (wanted.partition === null || a.partition === wanted.partition));
  return takePage(filterRows(sortRows(alerts, order), matches), order, request, alerts.length);
}
