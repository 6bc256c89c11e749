import { Pill } from "@/components/ui/pill";
import { NumTd, Table, Td, Th } from "@/components/ui/table";
import { TextLink } from "@/components/ui/text-link";
import { formatCount } from "@/lib/format";
import type { UncheckpointedGroup, UncheckpointedPartition } from "@/lib/translation";
import { groupPagePath } from "@/lib/views/groups";

/** Groups of a type MM2 does not checkpoint (streams, share): where each stands at the source, and why nothing is translated. */
export function UncheckpointedGroupsTable({ flow, groups }: { flow: string; groups: readonly UncheckpointedGroup[] }) {
  return (
    <Table data-testid="uncheckpointed-groups-table">
      <thead>
        <tr>
          <Th>Group</Th>
          <Th>Type</Th>
          <Th className="text-right">Partitions</Th>
          <Th>What MM2 does</Th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <tr key={g.group} data-testid={`uncheckpointed-${g.group}`} className="align-top">
            <Td>
              <TextLink href={groupPagePath(flow, g.group)} className="font-mono whitespace-nowrap">
                {g.group}
              </TextLink>
              <div className="text-xs text-zinc-600 dark:text-zinc-400">
                {g.state} · {g.members} member{g.members === 1 ? "" : "s"}
              </div>
              {g.unknown !== null ? <div className="mt-1 max-w-xs text-xs text-amber-800 dark:text-amber-300">Offsets not read this cycle — {g.unknown}</div> : null}
            </Td>
            <Td>
              <Pill tone="info">{g.groupType}</Pill>
            </Td>
            <NumTd>{g.partitions.length}</NumTd>
            <Td className="max-w-md text-xs">{g.note}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** One uncheckpointed group's partitions: its committed (or share start) offset at the source and its lag. */
export function UncheckpointedPartitionTable({ rows }: { rows: readonly UncheckpointedPartition[] }) {
  const share = rows.some((r) => r.kind === "share-start");
  return (
    <Table data-testid="uncheckpointed-partitions">
      <thead>
        <tr>
          <Th>Partition</Th>
          <Th>Target topic</Th>
          <Th className="text-right">{share ? "Share start offset" : "Committed"}</Th>
          <Th className="text-right">Source log end</Th>
          <Th className="text-right">Lag</Th>
          <Th>Target offset after failover</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.topic}/${r.partition}`} data-testid={`uncheckpointed-row-${r.topic}-${r.partition}`}>
            <Td className="font-mono">
              {r.topic}/{r.partition}
            </Td>
            <Td className="font-mono">{r.targetTopic ?? "not replicated"}</Td>
            <NumTd>{formatCount(r.offset)}</NumTd>
            <NumTd>{r.sourceLogEnd === null ? "unknown" : formatCount(r.sourceLogEnd)}</NumTd>
            <NumTd>{r.lag === null ? "unknown" : formatCount(r.lag)}</NumTd>
            <Td className="text-xs">none: not checkpointed (reset policy)</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
