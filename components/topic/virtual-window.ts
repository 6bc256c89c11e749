/**
 * Windowing math for a fixed-row-height list: which rows to render for a scroll position.
 * `overscan` extra rows above and below keep fast scrolling from showing blank space.
 */
export function computeWindow(scrollTop: number, viewportHeight: number, rowHeight: number, rowCount: number, overscan = 8): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(viewportHeight / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(rowCount, first + visible + overscan);
  return { start, end: Math.max(start, end) };
}
