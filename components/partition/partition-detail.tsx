import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { ChartMarks, SyncRowView, OffsetPoint } from "@/lib/views/partition";
import { formatTimestamp } from "@/lib/views/time-range";
import { CurrentValues } from "./current-values";
import { LagChart } from "./lag-chart";
import { OffsetsChart } from "./offsets-chart";
import { SyncChart } from "./sync-chart";
import { SyncTable } from "./sync-table";

interface Props {
  points: OffsetPoint[];
  marks: ChartMarks;
  rangeLabel: string;
  spanMs: number;
  current: { label: string; value: string; hint?: string }[];
  broker: { label: string; value: string }[];
  syncs: { rows: SyncRowView[]; total: number };
}

/** Body of the partition page: charts on the left, current values and offset syncs beside them. */
export function PartitionDetail({ points, marks, rangeLabel, spanMs, current, broker, syncs }: Props) {
  const noHistory = points.length < 2;
  const chartPoints = [...syncs.rows].reverse();
  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <div className="space-y-4 lg:col-span-2">
        <Card>
          <CardHeader>
            <CardTitle>Offsets over the last {rangeLabel}</CardTitle>
            <MarkSummary marks={marks} />
          </CardHeader>
          <CardContent>
            {noHistory ? (
              <p className="text-sm" data-testid="no-history">
                Not enough samples in the last {rangeLabel} yet ({points.length}): the first poll cycles are still running. Pick a longer range or wait a few seconds.
              </p>
            ) : (
              <>
                <OffsetsChart points={points} gaps={marks.gaps} resets={marks.resets} events={marks.events} spanMs={spanMs} />
                <MarkList marks={marks} />
              </>
            )}
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Lag (records)</CardTitle>
          </CardHeader>
          <CardContent>{noHistory ? <p className="text-sm">No lag history yet.</p> : <LagChart points={points} spanMs={spanMs} />}</CardContent>
        </Card>
      </div>
      <div className="space-y-4">
        <CurrentValues values={current} broker={broker} />
        <Card>
          <CardHeader>
            <CardTitle>Offset syncs</CardTitle>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              newest {syncs.rows.length} of {syncs.total} retained
            </span>
          </CardHeader>
          <CardContent className="space-y-3">
            {syncs.rows.length === 0 ? (
              <p className="text-sm">No offset syncs read yet. MM2 emits one when replication starts and then every offset.lag.max records.</p>
            ) : (
              <>
                {chartPoints.length > 1 ? <SyncChart points={chartPoints} /> : null}
                <SyncTable rows={syncs.rows} />
              </>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}

/** The marks in words (exact offsets and times), for reading and for screen readers. */
function MarkList({ marks: { gaps, resets, events } }: { marks: ChartMarks }) {
  if (gaps.length === 0 && resets.length === 0 && events.length === 0) return null;
  return (
    <ul className="mt-2 space-y-1 text-sm" data-testid="mark-list">
      {gaps.map((g) => (
        <li key={`loss-${g.from}`} className="text-red-800 dark:text-red-300">
          <strong>Data loss: {g.records} records</strong> (offsets {g.lowOffset.toLocaleString("en-US")}–{(g.highOffset - 1).toLocaleString("en-US")}) deleted at the source before MM2 copied them, between{" "}
          {formatTimestamp(g.from)} and {formatTimestamp(g.to).slice(11)}
        </li>
      ))}
      {resets.map((r) => (
        <li key={`reset-${r.at}`} className="text-purple-800 dark:text-purple-300">
          <strong>Topic reset</strong> at {formatTimestamp(r.at)}: {r.summary}
        </li>
      ))}
      {events.map((e, i) => (
        <li key={`event-${e.kind}-${e.at}`} className={e.kind === "redelivery" ? "text-zinc-700 dark:text-zinc-300" : "text-amber-800 dark:text-amber-300"} data-testid={`mark-${e.kind}`}>
          {events.length > 1 ? <span className="mr-1.5 inline-block min-w-5 rounded border border-current px-1 text-center text-xs font-bold">{i + 1}</span> : null}
          <strong>{e.label}</strong> at {formatTimestamp(e.at)}: {e.summary}
        </li>
      ))}
    </ul>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function MarkSummary({ marks: { gaps, resets, events } }: { marks: ChartMarks }) {
  if (gaps.length === 0 && resets.length === 0 && events.length === 0) return <span className="text-xs text-zinc-600 dark:text-zinc-400">no data loss, resets or MM2 events in this range</span>;
  const redeliveries = events.filter((e) => e.kind === "redelivery").length;
  const moves = events.length - redeliveries;
  const critical = [gaps.length > 0 ? plural(gaps.length, "data-loss gap", "data-loss gaps") : "", resets.length > 0 ? plural(resets.length, "topic reset", "topic resets") : ""].filter(Boolean);
  const other = [redeliveries > 0 ? plural(redeliveries, "re-copy", "re-copies") : "", moves > 0 ? plural(moves, "position move", "position moves") : ""].filter(Boolean);
  return (
    <span className="text-xs" data-testid="mark-summary">
      {critical.length > 0 ? <span className="font-semibold text-red-700 dark:text-red-400">{critical.join(" · ")}</span> : null}
      {critical.length > 0 && other.length > 0 ? " · " : null}
      {other.length > 0 ? <span className="text-zinc-700 dark:text-zinc-300">{other.join(" · ")}</span> : null}
    </span>
  );
}
