import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TextLink } from "@/components/ui/text-link";
import { formatAge, formatCount } from "@/lib/format";
import { flowPath } from "@/lib/views/flow-page";
import type { FailoverCost, FlowReadiness } from "@/lib/views/readiness";
import { StatusPill, VerdictPill } from "./readiness-pill";

/** "Can we fail over now?": the verdict, what failing over now costs, and every check with its evidence. */
export function ReadinessPanel({ readiness }: { readiness: FlowReadiness }) {
  const costly = listCostlyGroups(readiness.cost);
  return (
    <Card id="readiness" data-testid="readiness-panel" data-verdict={readiness.verdict} className="mb-4">
      <CardHeader>
        <CardTitle>Can we fail over now?</CardTitle>
        <VerdictPill verdict={readiness.verdict} />
      </CardHeader>
      <CardContent>
        <p className="mb-3 text-sm" data-testid="readiness-cost">
          <span className="font-semibold">If the source failed now: </span>
          {describeCost(readiness.cost, costly)}
          {costly.length > shownGroups ? (
            <>
              {" "}
              <TextLink href={flowPath(readiness.flow, "groups")} prefetch={false}>
                Every group, with failover plans
              </TextLink>
            </>
          ) : null}
        </p>
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {readiness.checks.map((check) => (
            <li key={check.id} className="py-2" data-testid={`readiness-check-${check.id}`} data-status={check.status}>
              <div className="flex flex-wrap items-baseline gap-2">
                <StatusPill status={check.status} />
                <span className="text-sm font-semibold">{check.title}</span>
                <span className="text-sm text-zinc-700 dark:text-zinc-300">{check.message}</span>
              </div>
              {check.status !== "ok" && check.items.length > 1 ? (
                <ul className="mt-1 ml-4 list-disc text-xs text-zinc-700 dark:text-zinc-300">
                  {check.items.map((item) => (
                    <li key={item.text}>{item.href === null ? item.text : <TextLink href={item.href}>{item.text}</TextLink>}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">RPO {formatAge(readiness.rpoSeconds * 1000)} (set flows.&quot;{readiness.flow}&quot;.rpoSeconds in the config).</p>
      </CardContent>
    </Card>
  );
}

function describeCost(cost: FailoverCost, replays: FailoverCost["groups"]): string {
  const copied = cost.unreplicatedRecords === 0n ? "every record still at the source is on the target" : `${formatCount(cost.unreplicatedRecords)} records are not on the target yet`;
  const records = cost.lostRecords === 0n ? copied : `${copied}; ${formatCount(cost.lostRecords)} records were lost before MM2 copied them (open DATA_LOSS)`;
  const age = cost.oldestUnreplicatedAgeMs === null || cost.unreplicatedRecords === 0n ? "" : ` (the oldest ${formatAge(cost.oldestUnreplicatedAgeMs)} old)`;
  const more = replays.length - shownGroups;
  const named = replays.slice(0, shownGroups).map((g) => `${g.group} re-reads ${formatCount(g.replayRecords)}${g.skippingPartitions > 0 ? ` and skips records on ${g.skippingPartitions} partition(s)` : ""}`);
  const groups =
    cost.groups.length === 0
      ? "; no checkpointed consumer group"
      : replays.length === 0
        ? `; ${cost.groups.length} group${cost.groups.length === 1 ? "" : "s"} resume exactly`
        : `; ${named.join(", ")}${more > 0 ? `, and ${formatCount(BigInt(more))} more group${more === 1 ? "" : "s"}` : ""}`;
  return `${records}${age}${groups}.`;
}

/**
 * Groups named in the cost line, worst first (skipping records, then the largest replay): a flow with hundreds of
 * groups made it a 30 KB paragraph at 10,000 partitions, sent with every flow page and read by nobody.
 */
const shownGroups = 5;

/** Per cycle's cost (readiness is assessed once per read model: readiness-data.ts), its groups sorted once. */
const costlyOf = new WeakMap<FailoverCost, FailoverCost["groups"]>();

function listCostlyGroups(cost: FailoverCost): FailoverCost["groups"] {
  let costly = costlyOf.get(cost);
  if (!costly) costlyOf.set(cost, (costly = cost.groups.filter((g) => g.replayRecords > 0n || g.skippingPartitions > 0).sort(compareCost)));
  return costly;
}

function compareCost(a: FailoverCost["groups"][number], b: FailoverCost["groups"][number]): number {
  if (a.skippingPartitions !== b.skippingPartitions) return b.skippingPartitions - a.skippingPartitions;
  return a.replayRecords === b.replayRecords ? a.group.localeCompare(b.group) : a.replayRecords < b.replayRecords ? 1 : -1;
}
