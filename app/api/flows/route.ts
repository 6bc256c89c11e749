import { handleRoute, jsonResponse } from "@/lib/api/json";
import { listFlowSummaries } from "@/lib/views/flows";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/** GET /api/flows — every discovered MM2 flow with totals and task states. */
export function GET() {
  return handleRoute(() => {
    const snapshot = requireSnapshot();
    return jsonResponse({ takenAt: snapshot.takenAt, flows: listFlowSummaries(snapshot) });
  });
}
