import { NumTd, Table, Th } from "@/components/ui/table";
import type { SyncRowView } from "@/lib/views/partition";

/** The newest retained offset syncs, newest first (upstream offset → downstream offset). */
export function SyncTable({ rows }: { rows: SyncRowView[] }) {
  return (
    <div className="max-h-80 overflow-y-auto" tabIndex={0} aria-label="Offset syncs, scrollable">
      <Table data-testid="sync-table">
        <thead className="sticky top-0 bg-white dark:bg-zinc-900">
          <tr>
            <Th className="text-right">#</Th>
            <Th className="text-right">Upstream</Th>
            <Th className="text-right">Downstream</Th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.index}>
              <NumTd className="text-zinc-500 dark:text-zinc-400">{r.index + 1}</NumTd>
              <NumTd>{r.upstream}</NumTd>
              <NumTd>{r.downstream}</NumTd>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
