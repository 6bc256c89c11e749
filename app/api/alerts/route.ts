import { handleRoute, jsonResponse } from "@/lib/api/json";
import { getRuntime } from "@/lib/collector/singleton";
import { parseAlertFilter } from "@/lib/views/alerts";

export const dynamic = "force-dynamic";

/**
 * GET /api/alerts?state=firing|resolved&type=DATA_LOSS&flow=east->west — alerts newest first:
 * {id, type, severity, state, acknowledged, flow, cluster, topic, partition, group, summary,
 * evidence, firstSeen, lastSeen, resolvedAt}.
 */
export function GET(request: Request) {
  return handleRoute(() => {
    const filter = parseAlertFilter(new URL(request.url).searchParams);
    return jsonResponse({ alerts: getRuntime().alerts.list(filter) });
  });
}
