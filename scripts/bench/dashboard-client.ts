import type { AlertRecord } from "@/lib/alerts/types";
import { sleep } from "@/lib/sandbox/processes";

/** Talks to the running dashboard over HTTP, as an operator's tools would. */
export interface DashboardClient {
  base: string;
  listFiringAlerts(type?: string): Promise<AlertRecord[]>;
  acknowledge(id: string): Promise<void>;
  /** Partition rows of a flow from GET /api/flows/{flow}. */
  readFlowPartitions(flowId: string): Promise<{ topic: string; partition: number; mm2Position: string | null; lag: string | null; sourceLogEnd: string | null }[]>;
}

/** Signs in with the admin secret (for acknowledging) and returns a client for `base` (http://127.0.0.1:port). */
export async function connectDashboard(base: string, adminSecret: string): Promise<DashboardClient> {
  const sameOrigin = { origin: base, "content-type": "application/json" };
  const session = await fetch(`${base}/api/session`, { method: "POST", headers: sameOrigin, body: JSON.stringify({ secret: adminSecret }) });
  if (!session.ok) throw new Error(`signing in to ${base} failed: HTTP ${session.status} ${await session.text()}`);
  const cookie = session.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const getJson = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as T;
  };
  return {
    base,
    async listFiringAlerts(type) {
      const query = new URLSearchParams({ state: "firing", limit: "1000", ...(type ? { type } : {}) });
      return readAllPages<AlertRecord>(getJson, "/api/alerts", query, "alerts");
    },
    async acknowledge(id) {
      const res = await fetch(`${base}/api/alerts/${id}/acknowledge`, { method: "POST", headers: { ...sameOrigin, cookie }, body: "{}" });
      if (!res.ok && res.status !== 404) throw new Error(`acknowledging alert ${id}: HTTP ${res.status} ${await res.text()}`);
    },
    async readFlowPartitions(flowId) {
      type Row = { topic: string; partition: number; mm2Position: string | null; lag: string | null; sourceLogEnd: string | null };
      const query = new URLSearchParams({ sort: "topic", limit: "5000" });
      return readAllPages<Row>(getJson, `/api/flows/${encodeURIComponent(flowId)}`, query, "partitions");
    },
  };
}

/** Every row (the list under `field`) of a paginated list endpoint: follows `page.nextCursor` until the last page. */
async function readAllPages<Row>(getJson: <T>(path: string) => Promise<T>, path: string, query: URLSearchParams, field: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let cursor: string | null = null; ; ) {
    const params = new URLSearchParams(query);
    if (cursor !== null) params.set("cursor", cursor);
    const body = await getJson<Record<string, Row[]> & { page: { nextCursor: string | null } }>(`${path}?${params}`);
    rows.push(...(body[field] ?? []));
    cursor = body.page.nextCursor;
    if (cursor === null) return rows;
  }
}

/** Polls until `check` returns a value (not null), or throws after `timeoutMs` naming `what`. */
export async function pollUntil<T>(check: () => Promise<T | null>, what: string, timeoutMs: number, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== null) return value;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (last error: ${lastError})` : ""}`);
}
