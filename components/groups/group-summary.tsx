import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill } from "@/components/ui/pill";
import { formatAge, formatCount } from "@/lib/format";
import type { FailoverModeName, GroupTranslation } from "@/lib/translation";
import { FailoverDownloads } from "./failover-downloads";
import { Stat } from "@/components/ui/stat";

const modeText: Record<FailoverModeName, string> = {
  mm2: "MM2's latest checkpoints (the model's translation where MM2 has not checkpointed yet)",
  precise: "exact target positions from the full sync history; a bracket's low bound (never skips); MM2's value where nothing is provable",
};

/** What the summary says of a plan: its totals over the whole group. */
type PlanTotals = { rowCount: number; omittedCount: number; rereadRecords: bigint };

/** A group's totals and both failover plans with what they would re-read. */
export function GroupSummary({ flow, target, group, plans }: { flow: string; target: string; group: GroupTranslation; plans: Record<FailoverModeName, PlanTotals> }) {
  const t = group.totals;
  return (
    <Card className="mb-4" data-testid="group-summary">
      <CardHeader>
        <CardTitle>If {group.group} failed over to {target} now</CardTitle>
        {t.skippingPartitions > 0 ? <Pill tone="crit">{`${t.skippingPartitions} partition(s) would SKIP records`}</Pill> : <Pill tone="ok">No skipped records</Pill>}
      </CardHeader>
      <CardContent>
        {group.unknown !== null ? (
          <p className="mb-3 text-sm text-amber-800 dark:text-amber-300" data-testid="group-unknown">
            <strong>Partial:</strong> the group&apos;s committed offsets could not be read this cycle ({group.unknown}); the
            figures below use that last read, and no alert about the group fires or resolves until it is read again.
          </p>
        ) : null}
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
          <Stat label="Replayed (MM2 plan)" value={formatCount(t.failoverReplayRecords)} />
          <Stat label="Re-read by MM2's translation" value={formatCount(t.rereadRecords)} />
          <Stat label="Group lag at the source" value={formatCount(t.groupLag)} />
          <Stat label="Oldest latest checkpoint" value={t.oldestCheckpointAgeMs === null ? "none yet" : `${formatAge(t.oldestCheckpointAgeMs)} ago`} />
        </dl>
        <ul className="mt-4 space-y-2 text-sm">
          {(["mm2", "precise"] as const).map((mode) => (
            <li key={mode} data-testid={`plan-${mode}`}>
              <span className="font-semibold">{mode === "mm2" ? "MM2 plan" : "Precise plan"}</span>: {plans[mode].rowCount} partition(s), re-reads at most{" "}
              <span className="font-mono">{formatCount(plans[mode].rereadRecords)}</span> records
              {plans[mode].omittedCount ? `, ${plans[mode].omittedCount} partition(s) left out (no offset)` : ""}. <span className="text-zinc-600 dark:text-zinc-400">{modeText[mode]}.</span>
            </li>
          ))}
        </ul>
        <div className="mt-3 flex flex-wrap items-center gap-3 text-xs text-zinc-600 dark:text-zinc-400">
          <FailoverDownloads flow={flow} group={group.group} rows={{ mm2: plans.mm2.rowCount, precise: plans.precise.rowCount }} />
          <span>
            Apply on the target: <code className="font-mono">kafka-consumer-groups.sh --bootstrap-server &lt;{target}&gt; --reset-offsets --from-file plan.csv --group {group.group} --execute</code> (group stopped).
          </span>
        </div>
      </CardContent>
    </Card>
  );
}
