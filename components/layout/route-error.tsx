"use client";

/** Route error boundary: says what failed and offers a retry. */
export function RouteError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 p-4 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <h2 className="font-semibold">This page could not be shown</h2>
      <p className="mt-1 text-sm">{error.message || "An unexpected error occurred."} The server log has details{error.digest ? ` (reference ${error.digest})` : ""}.</p>
      <button type="button" onClick={reset} className="mt-3 rounded border border-red-400 px-3 py-1 text-sm hover:bg-red-100 dark:hover:bg-red-900">
        Try again
      </button>
    </div>
  );
}
