/** Summary of a list of samples (milliseconds, counts, …). */
export interface Distribution {
  samples: number;
  min: number;
  median: number;
  p95: number;
  max: number;
  mean: number;
}

/** The value below which `q` (0..1) of the sorted samples fall (nearest rank). */
export function pickQuantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median, p95, min, max and mean of the samples (NaN everywhere when there are none). */
export function summarize(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((s, v) => s + v, 0) / sorted.length : Number.NaN;
  return {
    samples: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: pickQuantile(sorted, 0.5),
    p95: pickQuantile(sorted, 0.95),
    max: sorted.at(-1) ?? Number.NaN,
    mean,
  };
}

/** Median of the samples, or null when there are none. */
export function medianOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return present.length ? summarize(present).median : null;
}

export const toMiB = (bytes: number): number => bytes / 1024 / 1024;

/** Rounds for display and JSON: one decimal below 100, none above. */
export function round(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
}

/** CPU milliseconds (user + system) this process spent since `start` (a `process.cpuUsage()` reading). */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
