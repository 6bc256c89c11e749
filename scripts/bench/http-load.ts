import http from "node:http";
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

/** A page and the request its client makes before the page is shown (the topic page's data). */
export interface PagePair {
  page: string;
  data: string;
}

/** What measurePairLoad measured: the pair (page, then its data, one after the other) and each of its requests. */
export interface PairLoadResult {
  pair: LoadResult;
  page: LoadResult;
  data: LoadResult;
}

/**
 * `connections` clients, each asking for a random pair again and again for `seconds`: the page, then (once its answer
 * has arrived, as a browser's script asks) its data. A page is not shown until its data arrived, so the pair's
 * latency is what an operator waits for. Keep-alive connections (node:http), answers read in full; the answers are
 * tallied by the dashboard's response-cache header.
 */
export async function measurePairLoad(
  base: string,
  name: string,
  pairs: readonly PagePair[],
  connections: number,
  seconds: number,
  acceptEncoding: string | null,
): Promise<PairLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const headers: Record<string, string> = acceptEncoding === null ? {} : { "accept-encoding": acceptEncoding };
  const samples = { pair: [] as number[], page: [] as number[], data: [] as number[] };
  const bytes = { page: 0, data: 0 };
  const outcomes = { page: {} as Record<string, number>, data: {} as Record<string, number> };
  const failures = { non2xx: 0, errors: 0 };
  const deadline = performance.now() + seconds * 1000;
  const ask = async (kind: "page" | "data", path: string) => {
    const started = performance.now();
    const answer = await requestOnce(agent, `${base}${path}`, headers);
    samples[kind].push(performance.now() - started);
    bytes[kind] += answer.bytes;
    outcomes[kind][answer.cache] = (outcomes[kind][answer.cache] ?? 0) + 1;
    if (answer.status < 200 || answer.status > 299) failures.non2xx++;
  };
  const client = async () => {
    while (performance.now() < deadline) {
      const pair = pairs[Math.floor(Math.random() * pairs.length)]!;
      const started = performance.now();
      try {
        await ask("page", pair.page);
        await ask("data", pair.data);
        samples.pair.push(performance.now() - started);
      } catch {
        failures.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  agent.destroy();
  const summarize = (what: string, path: string, latencies: number[], kiB: number, cacheOutcomes?: Record<string, number>): LoadResult => {
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
    return {
      name: what, path: `${path} (1 of ${pairs.length})`,
      connections, seconds, p50Ms: at(0.5), p99Ms: at(0.99), requestsPerSecond: sorted.length / seconds, completed: sorted.length,
      non2xx: failures.non2xx, errors: failures.errors, timeouts: 0, responseKiB: kiB, urls: pairs.length, acceptEncoding,
      ...(cacheOutcomes ? { cacheOutcomes } : {}),
    };
  };
  const mean = (kind: "page" | "data") => (samples[kind].length > 0 ? bytes[kind] / samples[kind].length / 1024 : 0);
  return {
    pair: summarize(name, `${pairs[0]!.page} + ${pairs[0]!.data}`, samples.pair, mean("page") + mean("data")),
    page: summarize(`${name}: page`, pairs[0]!.page, samples.page, mean("page"), outcomes.page),
    data: summarize(`${name}: data`, pairs[0]!.data, samples.data, mean("data"), outcomes.data),
  };
}

/** One GET on `agent`, its body read in full (not decompressed: its size as sent). */
function requestOnce(agent: http.Agent, url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; cache: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers, timeout: 30_000 }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes, cache: String(response.headers["x-gapwatch-cache"] ?? "none") }));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error(`GET ${url}: no answer in 30 s`)));
    request.on("error", reject);
  });
}
