import { TextLink } from "@/components/ui/text-link";

/** Makes it impossible to mistake `?synthetic=N` rows for real partitions. */
export function SyntheticBanner({ count, realHref }: { count: number; realHref: string }) {
  return (
    <p role="note" data-testid="synthetic-banner" className="mb-3 rounded border border-fuchsia-300 bg-fuchsia-50 p-2 text-sm text-fuchsia-900 dark:border-fuchsia-800 dark:bg-fuchsia-950 dark:text-fuchsia-100">
      <strong>Synthetic rows for testing:</strong> {count.toLocaleString("en-US")} generated rows (from <code>?synthetic={count}</code>), not real data.{" "}
      <TextLink href={realHref}>Show the real partitions</TextLink>
    </p>
  );
}
