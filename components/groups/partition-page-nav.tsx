import { TextLink } from "@/components/ui/text-link";
import type { PageInfo } from "@/lib/views/pagination";

const sortLabels: Record<string, string> = { replay: "records replayed on failover, largest first", lag: "group lag, largest first", topic: "topic and partition" };

const inputClass =
  "rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-900";

type PartitionPageNavProps = { basePath: string; page: PageInfo; q: string | null; shown: number; range: string; problem: string | null };

/**
 * Above a group's partition table: how many of its partitions this page shows and in which order, a search and sort
 * (a plain GET form: it works without JavaScript), and the link to the next page. A group may read thousands of
 * partitions; the failover CSVs always hold all of them.
 */
export function PartitionPageNav({ basePath, page, q, shown, range, problem }: PartitionPageNavProps) {
  const link = (extra: Record<string, string>) => {
    const params = new URLSearchParams({ range, sort: page.sort, limit: String(page.limit), ...(q ? { q } : {}), ...extra });
    return `${basePath}?${params}`;
  };
  const count = (n: number) => n.toLocaleString("en-US");
  const ofWhat = q === null ? `${count(page.total)} partitions` : `${count(page.matched)} partitions matching “${q}” (${count(page.total)} in the group)`;
  return (
    <div className="mb-3 space-y-2 text-sm" data-testid="partition-page-nav">
      {problem !== null ? (
        <p className="text-amber-800 dark:text-amber-300" data-testid="partition-page-problem">
          Showing the first page instead: {problem}
        </p>
      ) : null}
      <form method="get" action={basePath} className="flex flex-wrap items-center gap-2">
        <input type="hidden" name="range" value={range} />
        <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
          Topic
          <input type="search" name="q" defaultValue={q ?? ""} placeholder="orders or orders/3" className={inputClass} />
        </label>
        <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
          Sort by
          <select name="sort" defaultValue={page.sort} className={inputClass}>
            {Object.entries(sortLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="rounded border border-zinc-300 px-2 py-1 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
          Show
        </button>
      </form>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {count(shown)} of {ofWhat} shown, by {sortLabels[page.sort] ?? page.sort}.{" "}
        {page.nextCursor !== null ? (
          <TextLink href={link({ cursor: page.nextCursor })} data-testid="partition-page-next">
            Next {count(page.limit)} →
          </TextLink>
        ) : null}
      </p>
    </div>
  );
}
