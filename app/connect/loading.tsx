/** Skeleton of the Connect page: header and one card per Connect cluster. */
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading Connect" className="space-y-4">
      <div className="h-8 w-64 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-64 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
