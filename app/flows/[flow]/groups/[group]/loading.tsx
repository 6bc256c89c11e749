/** Skeleton of a group's page: header, summary, chart and partition table. */
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading consumer group" className="space-y-4">
      <div className="h-8 w-80 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-40 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-64 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-72 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
