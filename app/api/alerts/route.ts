import { handleRoute, jsonResponse } from "@/lib/api/json";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { alertList, pageAlerts, parseAlertFilter } from "@/lib/views/alerts";
import { parsePageRequest } from "@/lib/views/pagination";

export const dynamic = "force-dynamic";

/**
 * GET /api/alerts?state=firing|resolved&type=DATA_LOSS&flow=east->west&q=orders/3&sort=lastSeen|firstSeen&limit=&cursor=
 * — alerts newest first: {id, type, severity, state, acknowledged, flow, cluster, topic, partition, group, summary,
 * evidence, firstSeen, lastSeen, resolvedAt}, and `page`.
 */
export function GET(request: Request) {
  return handleRoute(() => {
    const params = new URL(request.url).searchParams;
    const filter = parseAlertFilter(params);
    const { items, page } = pageAlerts(getServingRuntime().alerts.list(filter), parsePageRequest(params, alertList));
    return jsonResponse({ alerts: items, page });
  });
}
