const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const exact = new Intl.NumberFormat("en-US");

/** Axis ticks: 1.2K, 3.4M. */
export function formatCompact(value: unknown): string {
  return typeof value === "number" ? compact.format(value) : String(value ?? "");
}

/** Tooltip values: exact with separators, "—" when missing. */
export function formatExact(value: unknown): string {
  return typeof value === "number" ? exact.format(value) : value === null || value === undefined ? "—" : String(value);
}
