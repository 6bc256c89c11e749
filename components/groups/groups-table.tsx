import { Pill } from "@/components/ui/pill";
import { NumTd, Table, Td, Th } from "@/components/ui/table";
import { TextLink } from "@/components/ui/text-link";
import { formatAge, formatCount } from "@/lib/format";
import type { FlowTranslation } from "@/lib/translation";
import { groupPagePath, listUntranslatable } from "@/lib/views/groups";
import { FailoverDownloads } from "./failover-downloads";
import { UntranslatableList } from "./untranslatable-list";

/**
 * Every group MM2 checkpoints on the flow: records replayed if we fail over now, MM2's re-reads,
 * skipping partitions, the oldest latest-checkpoint age, untranslatable partitions and both CSVs.
 */
export function GroupsTable({ translation }: { translation: FlowTranslation }) {
  if (translation.groups.length === 0) {
    return (
      <p className="rounded border border-dashed border-zinc-300 p-3 text-sm dark:border-zinc-700" data-testid="no-groups">
        No consumer group on {translation.source} has committed offsets on a topic this flow replicates{translation.excludedGroups.length ? ` (excluded by MM2's groups filter: ${translation.excludedGroups.join(", ")})` : ""}.
      </p>
    );
  }
  return (
    <Table data-testid="groups-table">
      <thead>
        <tr>
          <Th>Group</Th>
          <Th>Type</Th>
          <Th className="text-right">Partitions</Th>
          <Th className="text-right">Replayed if we fail over now</Th>
          <Th className="text-right">Re-read by MM2&apos;s translation</Th>
          <Th>Skips</Th>
          <Th className="text-right">Oldest checkpoint</Th>
          <Th>Untranslatable partitions</Th>
          <Th>Failover plans</Th>
        </tr>
      </thead>
      <tbody>
        {translation.groups.map((g) => (
          <tr key={g.group} data-testid={`group-${g.group}`} className="align-top">
            <Td>
              <TextLink href={groupPagePath(translation.flow, g.group)} className="font-mono whitespace-nowrap">
                {g.group}
              </TextLink>
              <div className="text-xs text-zinc-600 dark:text-zinc-400">
                {g.state} · {g.members} member{g.members === 1 ? "" : "s"}
              </div>
              {g.unknown !== null ? (
                <div className="mt-1 max-w-xs text-xs text-amber-800 dark:text-amber-300" data-testid="group-unknown">
                  <strong>Partial:</strong> offsets not read this cycle — {g.unknown}; not judged until read again.
                </div>
              ) : null}
            </Td>
            <Td data-testid="group-type">{g.groupType}</Td>
            <NumTd>{g.totals.partitions}</NumTd>
            <NumTd>{formatCount(g.totals.failoverReplayRecords)}</NumTd>
            <NumTd>{formatCount(g.totals.rereadRecords)}</NumTd>
            <Td>{g.totals.skippingPartitions > 0 ? <Pill tone="crit">{`${g.totals.skippingPartitions} partition(s) SKIP`}</Pill> : <Pill tone="ok">none</Pill>}</Td>
            <NumTd>{g.totals.oldestCheckpointAgeMs === null ? "none yet" : `${formatAge(g.totals.oldestCheckpointAgeMs)} ago`}</NumTd>
            <Td>
              <UntranslatableList items={listUntranslatable(g)} />
            </Td>
            <Td>
              <FailoverDownloads flow={translation.flow} group={g.group} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
