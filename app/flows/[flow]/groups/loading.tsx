/** Skeleton of the groups page: header and the groups table. */
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading consumer groups" className="space-y-4">
      <div className="h-8 w-80 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-72 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
