/** Skeleton of the sign-in card. */
export default function Loading() {
  return <div aria-busy="true" aria-label="Loading sign-in" className="mx-auto h-56 max-w-md animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />;
}
