/**
 * Picks the line of a Java stack trace that says why it failed: the last `Caused by:` line
 * (the innermost cause), else the first line. After redpanda console's traceToErrorContent
 * (backend/pkg/connect/get_connectors.go).
 */
export function extractRootCause(trace: string | null | undefined): string | null {
  if (!trace) return null;
  const lines = trace.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const causes = lines.filter((l) => l.startsWith("Caused by:"));
  const last = causes.at(-1);
  if (last) return last.slice("Caused by:".length).trim();
  return lines[0] ?? null;
}
