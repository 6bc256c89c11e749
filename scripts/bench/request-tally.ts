/** Requests of one cycle, keyed `<cluster> <api> broker <id>`. */
export type CycleRequests = Map<string, number>;

/** One row of the requests-per-cycle table. */
export interface RequestRow {
  cluster: string;
  api: string;
  broker: string;
  /** Median over the measured cycles. */
  medianPerCycle: number;
  maxPerCycle: number;
}

export function formatRequestKey(cluster: string, api: string, broker: string): string {
  return `${cluster}\u0000${api}\u0000${broker}`;
}

/** Per API and broker: median and max requests per cycle (a cycle that sent none counts as 0). */
export function tabulateRequests(cycles: readonly CycleRequests[]): RequestRow[] {
  const keys = new Set(cycles.flatMap((c) => [...c.keys()]));
  return [...keys]
    .map((key) => {
      const [cluster = "", api = "", broker = ""] = key.split("\u0000");
      const counts = cycles.map((c) => c.get(key) ?? 0).sort((a, b) => a - b);
      return { cluster, api, broker, medianPerCycle: counts[Math.floor((counts.length - 1) / 2)] ?? 0, maxPerCycle: counts.at(-1) ?? 0 };
    })
    .sort((a, b) => a.cluster.localeCompare(b.cluster) || a.api.localeCompare(b.api) || a.broker.localeCompare(b.broker));
}

export function sumRequests(cycle: CycleRequests): number {
  let total = 0;
  for (const n of cycle.values()) total += n;
  return total;
}
