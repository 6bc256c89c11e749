/**
 * The request's "now" for server components. Pages are rendered per request (force-dynamic), so
 * reading the clock once per render is what we want; keeping it here keeps components pure.
 */
export function readRequestTime(): number {
  return Date.now();
}
