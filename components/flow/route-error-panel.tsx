"use client";

import Link from "next/link";

/**
 * Shared body of the flow/topic/partition/connect error boundaries: what failed, the message,
 * and two ways out (retry, or back to the overview).
 */
export function RouteErrorPanel({ what, error, reset }: { what: string; error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 p-4 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <h2 className="font-semibold">{what} could not be shown</h2>
      <p className="mt-1 text-sm">
        {error.message || "An unexpected error occurred."} The server log has details{error.digest ? ` (reference ${error.digest})` : ""}.
      </p>
      <div className="mt-3 flex gap-3 text-sm">
        <button type="button" onClick={reset} className="rounded border border-red-400 px-3 py-1 hover:bg-red-100 focus-visible:outline-2 focus-visible:outline-blue-500 dark:hover:bg-red-900">
          Try again
        </button>
        <Link href="/" className="rounded px-1 py-1 underline focus-visible:outline-2 focus-visible:outline-blue-500">
          Back to the overview
        </Link>
      </div>
    </div>
  );
}
