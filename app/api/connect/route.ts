import { handleRoute, jsonResponse } from "@/lib/api/json";
import { requireSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";

/** GET /api/connect — Connect clusters, connectors and tasks with states and root causes. */
export function GET() {
  return handleRoute(() => {
    const snapshot = requireSnapshot();
    const now = Date.now();
    return jsonResponse({
      connect: snapshot.connect.map((c) => ({
        ...c,
        dataAgeMs: c.dataAt === null ? null : now - c.dataAt,
        connectors: c.connectors.map(({ config, ...rest }) => ({ ...rest, config: redactConfig(config) })),
      })),
    });
  });
}

/** Connector configs can hold credentials (sasl.jaas.config, passwords): never send them out. */
function redactConfig(config: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, /password|secret|jaas|credential|token|key\.pem|keystore/i.test(k) ? "[redacted]" : v]));
}
