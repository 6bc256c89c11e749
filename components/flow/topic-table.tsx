import Link from "next/link";
import { Pill } from "@/components/ui/pill";
import { NumTd, Table, Td, Th } from "@/components/ui/table";
import { flowPath, type FlowTopicRowView } from "@/lib/views/flow-page";
import type { TopicTableView } from "@/lib/views/flow-topic-table";
import { LagSparkline } from "./lag-sparkline";
import { TopicTableControls } from "./topic-table-controls";

type TopicTableProps = { flowId: string; range: string; view: TopicTableView; rows: FlowTopicRowView[]; matching: number; total: number };

/**
 * The flow's topics, worst lag first by default, with search, sort, top-N and "hide internal topics". The server
 * picks and shapes the rows of the view (flow-topic-table.ts); only the controls and the sparklines are client code.
 */
export function TopicTable({ flowId, range, view, rows, matching, total }: TopicTableProps) {
  return (
    <div>
      <TopicTableControls view={view}>
        {rows.length} of {matching} matching · {total} topics in this flow
      </TopicTableControls>
      {rows.length === 0 ? (
        <p className="rounded border border-dashed border-zinc-300 p-3 text-sm dark:border-zinc-700">
          {total === 0 ? "This flow replicates no topics yet: check the source connector's topics filter." : "No topic matches: clear the search or untick “Hide internal topics”."}
        </p>
      ) : (
        <Table data-testid="topic-table">
          <thead>
            <tr>
              <Th>Topic</Th>
              <Th>Target topic</Th>
              <Th className="text-right">Partitions</Th>
              <Th className="text-right">Source log end (sum)</Th>
              <Th className="text-right">Target log end (sum)</Th>
              <Th className="text-right" aria-sort={view.sort === "name" ? "none" : view.sort === "lag-desc" ? "descending" : "ascending"}>
                Lag (records)
              </Th>
              <Th>Lag over range</Th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.topic} data-testid={`topic-row-${r.topic}`} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                <Td className="font-mono">
                  <Link href={`${flowPath(flowId, "topics", r.topic)}?range=${range}`} className="rounded-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-400">
                    {r.topic}
                  </Link>
                  {r.internal ? <Pill tone="unknown" className="ml-2">internal</Pill> : null}
                </Td>
                <Td className="font-mono text-zinc-600 dark:text-zinc-400">{r.targetTopic}</Td>
                <NumTd>
                  {r.partitions}
                  {r.unknownPartitions > 0 ? <span className="block text-xs font-normal text-amber-700 dark:text-amber-300">{r.unknownPartitions} partial</span> : null}
                </NumTd>
                <NumTd>{r.sourceLogEnd}</NumTd>
                <NumTd>{r.targetLogEnd}</NumTd>
                <NumTd className={r.lag > 0 ? "font-semibold text-red-700 dark:text-red-400" : undefined}>
                  {r.lagText}
                  {r.unknownPositions > 0 ? <span className="block text-xs font-normal text-amber-700 dark:text-amber-300">{r.unknownPositions} unknown</span> : null}
                </NumTd>
                <Td>
                  <LagSparkline lags={r.spark} label={r.topic} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
