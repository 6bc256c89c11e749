import { handleRoute, jsonResponse } from "@/lib/api/json";
import { readHealth } from "@/lib/views/health";

export const dynamic = "force-dynamic";

/** GET /api/health — status (ok | degraded | starting), clusters with reachability and data age. */
export function GET() {
  return handleRoute(() => jsonResponse(readHealth(Date.now())));
}
