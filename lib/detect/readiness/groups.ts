import { formatCount } from "@/lib/format";
import type { ReadinessRef, ReadinessRule, ReadinessStatus } from "../readiness-rule";
import { FindingType } from "../types";
import { describeFirstProblem, makeOutcome, pickWorstStatus } from "./outcome";

/**
 * Every consumer group reading a replicated topic is checkpointed, and failing over with MM2's
 * offsets neither skips records nor re-reads more than translationReplayRecords.
 */
export const groupsCheck: ReadinessRule = {
  id: "groups",
  title: "Consumer groups",
  check: ({ flow, translation, alerts, thresholds }) => {
    if (translation === null || !translation.syncsLoaded) {
      return makeOutcome("unknown", "MM2's offset syncs could not be read: groups cannot be translated");
    }
    const problems: { status: ReadinessStatus; text: string; ref: ReadinessRef | null }[] = [];
    for (const { group, unknown, totals: t } of translation.groups) {
      const ref = { kind: "group" as const, group };
      if (unknown !== null) problems.push({ status: "unknown", text: `${group}: offsets unknown (${unknown})`, ref });
      else if (t.skippingPartitions > 0) {
        const text = `${group} would skip records on ${t.skippingPartitions} partition(s)`;
        problems.push({ status: "degraded", text, ref });
      } else if (t.untranslatable > 0) {
        const text = `${group}: ${t.untranslatable} partition(s) not checkpointed yet`;
        problems.push({ status: "degraded", text, ref });
      } else if (t.failoverReplayRecords > BigInt(thresholds.translationReplayRecords)) {
        const text = `${group} would re-read ${formatCount(t.failoverReplayRecords)} records`;
        problems.push({ status: "degraded", text, ref });
      }
    }
    const restarts = "(restarts from its reset policy after failover)";
    for (const group of translation.excludedGroups) {
      problems.push({ status: "degraded", text: `${group}: MM2's groups filter leaves it out ${restarts}`, ref: null });
    }
    for (const { group, groupType } of translation.uncheckpointedGroups) {
      const text = `${group}: a ${groupType} group, which MM2 does not checkpoint ${restarts}`;
      problems.push({ status: "degraded", text, ref: null });
    }
    const stale = alerts.filter((a) => a.firing && a.flow === flow.id && a.type === FindingType.CHECKPOINT_STALE);
    for (const alert of stale) {
      const text = `${alert.group ?? "?"}: checkpoints stale`;
      problems.push({ status: "degraded", text, ref: { kind: "alert", alert } });
    }
    if (problems.length === 0) {
      const n = translation.groups.length;
      if (n === 0) return makeOutcome("ok", "no consumer group reads the replicated topics");
      return makeOutcome("ok", `all ${n} groups checkpointed and within the re-read budget`);
    }
    return makeOutcome(pickWorstStatus(problems.map((p) => p.status)), describeFirstProblem(problems), problems);
  },
};
