import { NumTd, Table, Td, Th } from "@/components/ui/table";
import { formatAge, formatCount } from "@/lib/format";
import type { IdealOffset, PartitionTranslation } from "@/lib/translation";
import { RereadCell } from "./reread-cell";
import { describeReason } from "./untranslatable-list";

/** One row per partition of a group: committed, MM2's translation, latest checkpoint, ideal, re-reads, lag. */
export function PartitionTable({ rows }: { rows: PartitionTranslation[] }) {
  return (
    <Table data-testid="partition-table">
      <thead>
        <tr>
          <Th>Partition</Th>
          <Th className="text-right">Committed (source)</Th>
          <Th className="text-right">MM2 translation</Th>
          <Th className="text-right">Latest checkpoint</Th>
          <Th className="text-right">Ideal (target)</Th>
          <Th className="text-right">Re-read (MM2)</Th>
          <Th className="text-right">Re-read on failover now</Th>
          <Th className="text-right">Group lag</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.topic}/${r.partition}`} data-testid={`partition-${r.topic}-${r.partition}`}>
            <Td className="font-mono">
              {r.topic}/{r.partition}
              {r.targetTopic ? <div className="text-xs text-zinc-600 dark:text-zinc-400">→ {r.targetTopic}</div> : null}
            </Td>
            <NumTd>{formatCount(r.committed)}</NumTd>
            <NumTd title={r.translation.kind === "untranslatable" ? r.translation.detail : `from sync ${r.translation.syncUpstream}→${r.translation.syncDownstream}`}>
              {r.translation.kind === "translated" ? formatCount(r.translation.downstream) : <span className="text-amber-800 dark:text-amber-300">{describeReason(r.translation.reason)}</span>}
            </NumTd>
            <NumTd>
              {r.checkpoint ? (
                <>
                  {formatCount(r.checkpoint.downstream)}
                  <div className="text-xs text-zinc-600 dark:text-zinc-400">
                    for {formatCount(r.checkpoint.upstream)} · {formatAge(r.checkpoint.ageMs)} ago
                  </div>
                </>
              ) : (
                "none yet"
              )}
            </NumTd>
            <NumTd>{formatIdeal(r.ideal)}</NumTd>
            <NumTd>
              <RereadCell value={r.reread} />
            </NumTd>
            <NumTd>
              <RereadCell value={r.failoverReread} />
            </NumTd>
            <NumTd>{formatCount(r.groupLag)}</NumTd>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function formatIdeal(ideal: IdealOffset) {
  if (ideal.kind === "exact") return <span title={`exact (${ideal.basis})`}>{formatCount(ideal.downstream)}</span>;
  if (ideal.kind === "bracket") return <span title={`bracket (${ideal.reason})`}>{`${formatCount(ideal.low)}–${formatCount(ideal.high)}`}</span>;
  return <span className="text-zinc-500 dark:text-zinc-400">unknown ({ideal.reason})</span>;
}
