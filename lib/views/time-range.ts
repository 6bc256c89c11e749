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

/** Axis tick for a chart covering `spanMs`: "14:05" (UTC) up to a day, "11-29 14:05" beyond. */
export function formatTimeTick(at: number, spanMs: number): string {
  const iso = new Date(at).toISOString();
  return spanMs > 24 * 60 * 60_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** Tooltip time: "2026-11-29 14:05:10 UTC". */
export function formatTimestamp(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
