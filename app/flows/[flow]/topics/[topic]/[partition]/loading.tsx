/** Skeleton of the partition page: header, charts and panels. */
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading partition" className="space-y-4">
      <div className="h-8 w-72 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-36 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-72 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
