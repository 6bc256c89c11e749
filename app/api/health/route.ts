import { handleRoute, jsonResponse } from "@/lib/api/json";
import { readHealth } from "@/lib/views/health";

export const dynamic = "force-dynamic";

/** GET /api/health — status (ok | degraded | starting), clusters with reachability, data age and unread groups; flows with unknown ("partial") partitions; blind spots (reads denied for lack of an ACL). */
export function GET() {
  return handleRoute(() => jsonResponse(readHealth(Date.now())));
}
