import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readPartitionTopic } from "@/lib/collector/flow-rows";
import type { ExcludedTopic, Flow } from "@/lib/collector/types";
import type { EventCandidate } from "./events";
import { countOf, findCluster, findTopic, isClusterFresh, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * TOPIC_LEFT_FLOW (info, an event) — a source topic MM2 no longer replicates: an operator narrowed
 * the source connector's `topics` / `topics.exclude`. Connect keeps MM2's offsets for it, so it is
 * not a stall, and records deleted at the source afterwards are not a loss of this flow.
 *
 * LOGIC — per flow present in this cycle and the previous one, with its source cluster fresh in both:
 * - a topic that had partitions in the flow before and has none now, that still exists on the source
 *   and that MM2's filter now leaves out for a known reason (`flow.excludedTopics`), left the flow;
 * - a topic that vanished from the source, or whose filter Gapwatch cannot evaluate, is not reported
 *   (deletion is TOPIC_RESET's business; unknown is not judged).
 * A topic that joins the flow (new topic, or filter widened) just appears: no finding.
 * One event per departure: scope `TOPIC_LEFT_FLOW|<flow>|<topic>`, tagged and keyed by the cycle
 * time, so leaving again later is a new event; held like every event for `eventHoldMs`, then gone.
 */
export function detectTopicsLeftFlow(ctx: DetectorContext): EventCandidate[] {
  if (ctx.previous === null) return [];
  const candidates: EventCandidate[] = [];
  for (const flow of ctx.current.flows) {
    const before = ctx.previous.flows.find((f) => f.id === flow.id);
    const sourceFresh = isClusterFresh(findCluster(ctx.previous, flow.source)) && isClusterFresh(findCluster(ctx.current, flow.source));
    if (before === undefined || !sourceFresh) continue;
    // A topic's partitions come one after another (buildFlow's order): one partition of each run of them is read
    // (flow-columns.ts topicRunStarts), and a run's partitions are counted by where the next run starts.
    const runsNow = readFlowColumns(flow).topicRunStarts;
    const starts = findRunStartsBefore(ctx, before);
    // The steady case: the same topics in the same order as last cycle, so none left (no set of every topic made).
    if (starts !== null && hasSameTopicRuns(flow, runsNow, before, starts)) continue;
    const topicsNow = new Set<string>();
    for (const at of runsNow) topicsNow.add(readPartitionTopic(flow, at).topic);
    const left = new Map<string, number>();
    if (starts === null) {
      let run: string | undefined;
      let stayed = true;
      for (const p of before.partitions) {
        if (p.topic !== run) stayed = topicsNow.has((run = p.topic));
        if (!stayed) left.set(p.topic, (left.get(p.topic) ?? 0) + 1);
      }
    }
    for (let r = 0; starts !== null && r < starts.length; r++) {
      const topic = readPartitionTopic(before, starts[r]!).topic;
      if (topicsNow.has(topic)) continue;
      const end = r + 1 < starts.length ? starts[r + 1]! : countFlowPartitions(before);
      left.set(topic, (left.get(topic) ?? 0) + end - starts[r]!);
    }
    for (const [topic, partitions] of left) {
      const excluded = flow.excludedTopics.find((e) => e.topic === topic);
      if (excluded === undefined || findTopic(ctx.current, flow.source, topic) === undefined) continue;
      candidates.push(createLeftCandidate(ctx, flow, { ...excluded, partitions }));
    }
  }
  return candidates;
}

/** Whether two cycles' flows list the same topics, run for run (`runs`, `runsBefore`: their topic run starts). */
function hasSameTopicRuns(flow: Flow, runs: Int32Array, before: Flow, runsBefore: Int32Array): boolean {
  if (runs.length !== runsBefore.length) return false;
  for (let r = 0; r < runs.length; r++) {
    if (readPartitionTopic(flow, runs[r]!).topic !== readPartitionTopic(before, runsBefore[r]!).topic) return false;
  }
  return true;
}

/**
 * The topic runs of the previous cycle's flow where the cycle's judged flows read its columns already (ctx.judged);
 * null otherwise (its partitions are walked: reading its columns here could refill them against a newer slot index).
 */
function findRunStartsBefore(ctx: DetectorContext, before: Flow): Int32Array | null {
  for (const judged of ctx.judged) if (judged.before === before) return judged.was.topicRunStarts;
  return null;
}

function createLeftCandidate(ctx: DetectorContext, flow: Flow, left: ExcludedTopic & { partitions: number }): EventCandidate {
  const scope = `${FindingType.TOPIC_LEFT_FLOW}|${flow.id}|${left.topic}`;
  const held =
    left.heldPositions > 0
      ? `Connect still holds MM2's offsets for ${countOf(left.heldPositions, "partition")}`
      : "Connect holds no MM2 offsets for it";
  return {
    scope,
    tag: String(ctx.now),
    keySuffix: String(ctx.now),
    range: null,
    render: (key, _range, firstSeen): Finding => ({
      key,
      type: FindingType.TOPIC_LEFT_FLOW,
      severity: Severity.INFO,
      flow: flow.id,
      cluster: flow.source,
      topic: left.topic,
      summary: `${left.topic} left the flow ${flow.id}: ${left.reason}; ${held}`,
      evidence: {
        reason: left.reason,
        partitionsBefore: left.partitions,
        heldPositions: left.heldPositions,
        topicsFilter: flow.topicsFilter,
        leftAt: firstSeen,
      },
      observedAt: ctx.now,
    }),
  };
}

/**
 * FLOW_CONFIG_WARNING (warning, a level finding) — a setting of the flow's MM2 connectors that
 * Gapwatch cannot evaluate exactly, from `flow.warnings` (collector/flow-discovery.ts):
 * - a custom `topic.filter.class`, or `topics.blacklist` alone (its effect depends on MM2's
 *   version), or a pattern JavaScript cannot compile: membership falls back to "Connect holds
 *   MM2's offsets, or the remote topic exists";
 * - a `replication.policy.class` other than MM2's Default/Identity policies (silenced by the
 *   config override `flows.<id>.replicationPolicy`), or source connectors of one flow whose
 *   policies differ.
 * One finding per flow, kind and subject: `FLOW_CONFIG_WARNING|<flow>|<kind>|<connector>|<subject>`.
 */
export function detectFlowConfigWarnings(ctx: DetectorContext): Finding[] {
  return ctx.current.flows.flatMap((flow) =>
    flow.warnings.map((w) => ({
      key: [FindingType.FLOW_CONFIG_WARNING, flow.id, w.kind, w.connector ?? "", w.subject].join("|"),
      type: FindingType.FLOW_CONFIG_WARNING,
      severity: Severity.WARNING,
      flow: flow.id,
      cluster: flow.source,
      summary: `Flow ${flow.id}: ${w.message}`,
      evidence: { kind: w.kind, connector: w.connector, subject: w.subject, connectCluster: flow.connectors.connectCluster },
      observedAt: ctx.now,
    })),
  );
}
