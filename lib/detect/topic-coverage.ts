import type { Flow } from "@/lib/collector/types";
import { countOf, formatDuration, formatUtcTime, isFlowFresh, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * Topic coverage of each flow, from what the collector read of MM2's topic filter (`flow.coverage`):
 *
 * LOGIC — per flow with coverage read and both clusters fresh (otherwise last cycle's findings are
 * carried: unknown is not healthy):
 * - TOPIC_FILTER_MATCHES_NOTHING (warning, `TOPIC_FILTER_MATCHES_NOTHING|<flow>`): every source
 *   connector's filter is known (read this cycle, DefaultTopicFilter) and takes no source topic besides
 *   heartbeats topics, which MM2 copies whatever the filter says: the flow copies no data while every
 *   connector may be RUNNING. Quiet while a connector config is unknown (custom filter class, dedicated
 *   MM2's config topic not read).
 * - TOPIC_MISSING_ON_TARGET (warning, `TOPIC_MISSING_ON_TARGET|<flow>|<topic>`): a topic the filter
 *   takes has had no remote topic on the target for at least `targetTopicMissingMs` (since the first
 *   cycle that saw it missing). A new topic MM2 has not created yet (next topic refresh) is the look-alike.
 *   The threshold is at least twice the flow's longest topic refresh (`refresh.topics.interval.seconds` of its
 *   source connectors; resolveMissingThresholdMs).
 * - TOPIC_MISSING_ON_TARGET, same key, for some partitions: the remote topic exists but lacks partitions the source
 *   has (its partition count was increased) for at least that threshold since the first cycle that saw any
 *   missing. MM2 adds them at its next topic refresh, then copies them from offset 0: until then, the look-alike.
 */
export function detectCoverageFindings(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const flow of ctx.current.flows) {
    const coverage = flow.coverage;
    if (coverage === undefined || !isFlowFresh(ctx.current, flow)) continue;
    if (coverage.filterKnown && coverage.matchedByFilter === 0) findings.push(createNothingMatched(ctx, flow));
    const thresholdMs = resolveMissingThresholdMs(ctx, flow);
    for (const missing of coverage.missingOnTarget) {
      const forMs = ctx.now - missing.since;
      if (forMs < thresholdMs) continue;
      findings.push({
        key: `${FindingType.TOPIC_MISSING_ON_TARGET}|${flow.id}|${missing.topic}`,
        type: FindingType.TOPIC_MISSING_ON_TARGET,
        severity: Severity.WARNING,
        flow: flow.id,
        cluster: flow.target,
        topic: missing.topic,
        summary:
          `${missing.topic} is in the flow ${flow.id} but ${missing.targetTopic} has been missing on ${flow.target} ` +
          `for ${formatDuration(forMs)} (since ${formatUtcTime(missing.since)}): MM2 copies none of its records`,
        evidence: { targetTopic: missing.targetTopic, missingSince: missing.since, missingForMs: forMs, thresholdMs },
        observedAt: ctx.now,
      });
    }
    for (const missing of coverage.partitionsMissingOnTarget ?? []) {
      const forMs = ctx.now - missing.since;
      if (forMs >= thresholdMs) findings.push(createPartitionsMissing(ctx, flow, missing, { forMs, thresholdMs }));
    }
  }
  return findings;
}

/**
 * How long a remote topic or partition may be missing: `targetTopicMissingMs`, or twice the flow's longest topic
 * refresh when that is longer (a connector refreshing hourly legitimately leaves a new topic missing for up to an
 * hour; twice leaves room for a slow refresh).
 */
function resolveMissingThresholdMs(ctx: DetectorContext, flow: Flow): number {
  const refreshMs = flow.topicRefreshMs ?? null;
  return refreshMs === null ? ctx.thresholds.targetTopicMissingMs : Math.max(ctx.thresholds.targetTopicMissingMs, 2 * refreshMs);
}

function createPartitionsMissing(
  ctx: DetectorContext,
  flow: Flow,
  missing: { topic: string; targetTopic: string; partitions: number[]; since: number },
  { forMs, thresholdMs }: { forMs: number; thresholdMs: number },
): Finding {
  const list = missing.partitions.join(", ");
  const which = missing.partitions.length === 1 ? `partition ${list} of ${missing.topic} has` : `partitions ${list} of ${missing.topic} have`;
  return {
    key: `${FindingType.TOPIC_MISSING_ON_TARGET}|${flow.id}|${missing.topic}`,
    type: FindingType.TOPIC_MISSING_ON_TARGET,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.target,
    topic: missing.topic,
    summary:
      `${which} had no partition in ${missing.targetTopic} on ${flow.target} ` +
      `for ${formatDuration(forMs)} (since ${formatUtcTime(missing.since)}) in the flow ${flow.id}: MM2 has not followed the source's new partition count ` +
      `and copies none of their records`,
    evidence: {
      targetTopic: missing.targetTopic,
      missingPartitions: missing.partitions.join(","),
      missingSince: missing.since,
      missingForMs: forMs,
      thresholdMs,
    },
    observedAt: ctx.now,
  };
}

function createNothingMatched(ctx: DetectorContext, flow: Flow): Finding {
  const unmatched = (flow.coverage?.unmatched ?? []).filter((u) => !u.internal);
  const reasons = [...new Set(unmatched.map((u) => u.reason ?? "unknown"))];
  return {
    key: `${FindingType.TOPIC_FILTER_MATCHES_NOTHING}|${flow.id}`,
    type: FindingType.TOPIC_FILTER_MATCHES_NOTHING,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.source,
    summary:
      `MM2's topic filter of ${flow.id} (topics ${flow.topicsFilter}) matches none of the ${countOf(unmatched.length, "topic")} ` +
      `on ${flow.source}${unmatched.length > 0 ? ` (${summarizeNames(unmatched.map((u) => u.topic))}: ${reasons.join("; ")})` : ""}: the flow copies no data`,
    evidence: { topicsFilter: flow.topicsFilter, sourceTopics: unmatched.length, topicNames: unmatched.map((u) => u.topic).join(","), reasons: reasons.join("; ") },
    observedAt: ctx.now,
  };
}
