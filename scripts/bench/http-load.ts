import autocannon from "autocannon";

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
}

/** `connections` concurrent clients hammering `path` for `seconds` (autocannon, programmatic). */
export async function measureLoad(base: string, name: string, path: string, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({ url: `${base}${path}`, connections, duration: seconds, timeout: 30 });
  return {
    name,
    path,
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
  };
}
