/** Formatting for the UI: exact integers with thousands separators, short ages and durations. */

const grouped = new Intl.NumberFormat("en-US");

/** 1234567n → "1,234,567" (exact for bigint); null → "—". */
export function formatCount(value: bigint | number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return grouped.format(value);
}

/** Milliseconds → "4 s", "3 min", "2 h 5 min", "3 d". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d`;
}

/** Heartbeat latency in ms → "0.8 s", or "—". */
export function formatLatency(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : formatAge(ms);
}
