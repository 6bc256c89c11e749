/** A Java stack trace, readable: the root cause first, the full trace folded in a <details>. */
export function TraceDetails({ rootCause, trace }: { rootCause: string | null; trace: string | null }) {
  if (!trace && !rootCause) return null;
  return (
    <div className="mt-1 text-xs">
      {rootCause ? (
        <p className="font-mono break-all text-red-800 dark:text-red-300">
          <span className="font-sans font-semibold">Root cause: </span>
          {rootCause}
        </p>
      ) : null}
      {trace ? (
        <details className="mt-1">
          <summary className="cursor-pointer rounded-sm text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-zinc-400 dark:hover:text-zinc-100">Full stack trace ({trace.split("\n").length} lines)</summary>
          <pre className="mt-1 max-h-80 overflow-auto rounded bg-zinc-100 p-2 font-mono text-[11px] leading-snug whitespace-pre dark:bg-zinc-950">{trace}</pre>
        </details>
      ) : null}
    </div>
  );
}
