import type { Snapshot } from "@/lib/collector/types";
import { detectCommitsWithoutLeaderEpoch } from "./commit-without-leader-epoch";
import { detectDataLoss } from "./data-loss";
import { listEventFindings, mergeEvents, pruneEvents } from "./events";
import { detectOffsetsOutOfRange } from "./offset-out-of-range";
import { detectPartitionHealth } from "./partition-health";
import { detectReplicationLag } from "./replication-lag";
import { detectRetentionRisk } from "./retention-risk";
import { indexFreshFlowPartitions, isClusterFresh, listFreshFlowPartitions, type DetectorContext } from "./snapshot-views";
import { advanceSyncMarkers, selectNewSyncs } from "./sync-steps";
import { detectTargetTruncation } from "./target-truncated";
import { detectTaskFailures } from "./task-failed";
import { detectTaskStalls } from "./task-stalled";
import { detectTopicReset } from "./topic-reset";
import { detectUncleanTruncation } from "./unclean-truncation";
import type { DetectorInput, DetectorOutput, Finding } from "./types";

/**
 * Runs every detector over one cycle. Pure: the caller passes the clock (`now`) and the memory
 * returned by the previous call, and persists the memory it gets back.
 *
 * - Event findings (DATA_LOSS, TOPIC_RESET, TARGET_TRUNCATED, UNCLEAN_TRUNCATION) are merged into
 *   held events and re-emitted until `eventHoldMs` after they were last seen (events.ts).
 * - Level findings (all others) are emitted while their condition holds. When the data a finding
 *   was based on is stale this cycle (cluster unreachable or carried over, Connect unreachable),
 *   last cycle's finding is emitted again: unknown is not healthy, and an alert must not resolve
 *   because its cluster stopped answering.
 * - Offset-sync steps are judged once, in the first cycle where they are new and the flow's data
 *   is fresh in this and the previous cycle (sync-steps.ts).
 */
export function runDetectors(input: DetectorInput): DetectorOutput {
  const { previous, current, history, memory, now, thresholds } = input;
  const before = indexFreshFlowPartitions(previous);
  const freshKeys = new Set(listFreshFlowPartitions(current).map((v) => v.key));
  const judgedKeys = new Set([...freshKeys].filter((key) => before.has(key)));
  const newSyncs = new Map([...judgedKeys].map((key) => [key, selectNewSyncs(history.offsetSyncs.get(key) ?? [], memory.syncMarkers[key])]));
  const ctx: DetectorContext = { previous, current, now, thresholds, newSyncs };

  const candidates = [...detectDataLoss(ctx), ...detectTopicReset(ctx), ...detectTargetTruncation(ctx), ...detectUncleanTruncation(ctx)];
  const events = mergeEvents(pruneEvents(memory.events, now, thresholds.eventHoldMs), candidates, now);
  const stalls = detectTaskStalls(ctx, memory.positions);
  const level = [
    ...detectTaskFailures(ctx),
    ...stalls.findings,
    ...detectReplicationLag(ctx),
    ...detectRetentionRisk(ctx),
    ...detectPartitionHealth(ctx),
    ...detectCommitsWithoutLeaderEpoch(ctx),
    ...detectOffsetsOutOfRange(ctx),
  ];
  const levelFindings = [...level, ...carryStaleFindings(memory.lastFindings, level, current)];
  return {
    findings: [...listEventFindings(events), ...levelFindings],
    memory: {
      version: 1,
      events,
      syncMarkers: advanceSyncMarkers(memory.syncMarkers, history, judgedKeys, freshKeys),
      positions: stalls.marks,
      lastFindings: levelFindings,
    },
  };
}

/** Last cycle's findings that were not produced now because their data is stale. */
function carryStaleFindings(last: readonly Finding[], produced: readonly Finding[], snapshot: Snapshot): Finding[] {
  const keys = new Set(produced.map((f) => f.key));
  const staleClusters = new Set(snapshot.clusters.filter((c): boolean => !isClusterFresh(c)).map((c) => c.alias));
  const staleConnect = new Set(snapshot.connect.filter((c) => !c.reachable).map((c) => c.name));
  const isStale = (finding: Finding): boolean => {
    const connect = finding.evidence.connectCluster;
    if (typeof connect === "string") return staleConnect.has(connect);
    if (finding.flow !== undefined) return resolveFlowClusters(snapshot, finding.flow).some((alias) => staleClusters.has(alias));
    return finding.cluster !== undefined && staleClusters.has(finding.cluster);
  };
  return last.filter((finding) => !keys.has(finding.key) && isStale(finding));
}

/** Source and target aliases of a flow; from its id (`<source>-><target>`) when it is not in the snapshot. */
function resolveFlowClusters(snapshot: Snapshot, flowId: string): string[] {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  return flow === undefined ? flowId.split("->") : [flow.source, flow.target];
}
