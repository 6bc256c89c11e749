import { jsonResponse } from "@/lib/api/json";
import { readLiveness } from "@/lib/views/probes";

export const dynamic = "force-dynamic";

/** GET /api/health/live — liveness for orchestrators: 200 while this process serves HTTP; reads no store or Kafka. */
export function GET() {
  return jsonResponse(readLiveness(Date.now()));
}
