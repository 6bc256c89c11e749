import autocannon, { type AutocannonRequest } from "autocannon";

export interface LoadResult {
  name: string;
  path: string;
  connections: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  completed: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Mean response size. */
  responseKiB: number;
  /** A load over several URLs (each request picks one at random): how many, and the answers by `x-gapwatch-cache`. */
  urls?: number;
  cacheOutcomes?: Record<string, number>;
  /** The Accept-Encoding the clients sent (none: plain answers). */
  acceptEncoding: string | null;
}

/** What Chromium sends: pages are fetched by browsers, which always accept compressed answers. */
export const browserAcceptEncoding = "gzip, deflate, br, zstd";

/**
 * `connections` concurrent clients hammering `path` for `seconds` (autocannon, programmatic). With several paths each
 * request picks one at random, and the answers are tallied by the dashboard's response-cache header (reading each
 * body costs the load generator CPU, so single-path loads do not). `acceptEncoding` is sent as browsers do; without it
 * the answers come uncompressed, as scripts calling the API with plain curl get them.
 */
export async function measureLoad(
  base: string,
  name: string,
  paths: string | readonly string[],
  connections: number,
  seconds: number,
  acceptEncoding: string | null = null,
): Promise<LoadResult> {
  const list = typeof paths === "string" ? [paths] : paths;
  const cacheOutcomes: Record<string, number> = {};
  const rotate = list.length > 1 ? [{
    setupRequest: (request: AutocannonRequest) => ({ ...request, path: list[Math.floor(Math.random() * list.length)]! }),
    onResponse: (_status: number, _body: string, _context: object, headers: Record<string, string>) => {
      const outcome = headers["x-gapwatch-cache"] ?? "none";
      cacheOutcomes[outcome] = (cacheOutcomes[outcome] ?? 0) + 1;
    },
  }] : undefined;
  const headers = acceptEncoding === null ? undefined : { "accept-encoding": acceptEncoding };
  const r = await autocannon({ url: `${base}${list[0]}`, connections, duration: seconds, timeout: 30, headers, requests: rotate });
  return {
    name,
    path: list.length > 1 ? `${list[0]} (1 of ${list.length})` : list[0]!,
    connections,
    seconds,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requestsPerSecond: r.requests.average,
    completed: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    responseKiB: r.requests.total > 0 ? r.throughput.total / r.requests.total / 1024 : 0,
    ...(rotate ? { urls: list.length, cacheOutcomes } : {}),
    acceptEncoding,
  };
}
