// The parts of autocannon 8's programmatic API the benchmark uses (the package ships no types).
declare module "autocannon" {
  interface AutocannonOptions {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    headers?: Record<string, string>;
    /** Each connection cycles through these; `setupRequest` may rewrite a request (its path) before it is sent. */
    requests?: Array<{
      setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
      onResponse?: (status: number, body: string, context: object, headers: Record<string, string>) => void;
    }>;
  }
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
  }
  interface AutocannonHistogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface AutocannonResult {
    url: string;
    connections: number;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    latency: AutocannonHistogram;
    requests: AutocannonHistogram & { sent: number };
    throughput: AutocannonHistogram;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export type { AutocannonRequest };
  export default autocannon;
}
