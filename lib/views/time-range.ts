/**
 * The time ranges the flow and partition pages offer (`?range=1h`). Pure and client-safe: the
 * picker (client) and the pages (server) read the same table.
 */
export const timeRanges = {
  "15m": { label: "15 min", ms: 15 * 60_000 },
  "1h": { label: "1 h", ms: 60 * 60_000 },
  "6h": { label: "6 h", ms: 6 * 60 * 60_000 },
  "24h": { label: "24 h", ms: 24 * 60 * 60_000 },
  "7d": { label: "7 d", ms: 7 * 24 * 60 * 60_000 },
} as const;
export type TimeRangeKey = keyof typeof timeRanges;

export const defaultTimeRange: TimeRangeKey = "1h";

export function isTimeRangeKey(value: string): value is TimeRangeKey {
  return Object.hasOwn(timeRanges, value);
}

/** The range a `?range=` value names; unknown or missing values fall back to 1 h. */
export function parseTimeRange(raw: string | string[] | undefined, now: number): { key: TimeRangeKey; label: string; from: number; to: number } {
  const value = Array.isArray(raw) ? raw[0] : raw;
  const key = value !== undefined && isTimeRangeKey(value) ? value : defaultTimeRange;
  return { key, label: timeRanges[key].label, from: now - timeRanges[key].ms, to: now };
}

const secondMs = 1000;
const minuteMs = 60 * secondMs;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;

/** Tick steps, finest first: each divides a day, so UTC multiples of a step land on round clock times. */
const tickSteps = [
  5, 10, 15, 30, 60, 2 * 60, 5 * 60, 10 * 60, 15 * 60, 30 * 60, 60 * 60, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600,
].map((s) => s * secondMs);

/** How an axis labels its ticks: "14:05:30", "14:05", or "Dec 1 14:05" (all UTC). */
export type TimeTickUnit = "seconds" | "minutes" | "days";

/** A time axis: ticks at round UTC times between the first and last point, and how to label them. */
export interface TimeAxis {
  ticks: number[];
  unit: TimeTickUnit;
}

/**
 * Ticks for a chart of the range `spanMs` whose points run from `first` to `last`: the finest round step that
 * gives at most `maxTicks` ticks, labelled with seconds for a 15-minute range (or steps under a minute),
 * day and time beyond a day, else hours and minutes. Ticks are multiples of the step and the label shows
 * every unit the step can change, so no two ticks read the same.
 */
export function planTimeAxis(first: number, last: number, spanMs: number, maxTicks = 6): TimeAxis {
  const extent = Math.max(0, last - first);
  const step = tickSteps.find((s) => Math.floor(last / s) - Math.ceil(first / s) + 1 <= maxTicks) ?? Math.ceil(extent / maxTicks / dayMs) * dayMs;
  const ticks: number[] = [];
  for (let t = Math.ceil(first / step) * step; t <= last; t += step) ticks.push(t);
  const unit: TimeTickUnit = step < minuteMs || spanMs <= 15 * minuteMs ? "seconds" : spanMs > dayMs ? "days" : "minutes";
  return { ticks, unit };
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Axis tick label in UTC: "14:05:30" (seconds), "14:05" (minutes), "Dec 1 14:05" (days). */
export function formatTimeTick(at: number, unit: TimeTickUnit): string {
  const d = new Date(at);
  const iso = d.toISOString();
  if (unit === "seconds") return iso.slice(11, 19);
  if (unit === "minutes") return iso.slice(11, 16);
  return `${months[d.getUTCMonth()]} ${d.getUTCDate()} ${iso.slice(11, 16)}`;
}

/** Tooltip time: "2026-11-29 14:05:10 UTC". */
export function formatTimestamp(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
