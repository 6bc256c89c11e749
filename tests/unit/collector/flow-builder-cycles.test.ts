/**
 * buildFlow over a sequence of cycles, each compared field by field with a straightforward build of the same
 * snapshot (every partition looked up by its `topic/partition` string, one comparator sort): what buildFlow
 * keeps between cycles (the sorted topic names, the remote topic names) must never change a flow.
 */
import { describe, expect, it } from "vitest";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { buildFlow, derivePosition, type FlowReadings } from "@/lib/collector/flow-builder";
import type { FlowDefinition } from "@/lib/collector/flow-discovery";
import { decideMembership } from "@/lib/collector/flow-membership";
import { createUnknownJudge, type PreviousFlow } from "@/lib/collector/partition-unknown";
import type { ClusterSnapshot, Flow, FlowPartition, PartitionState } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";

const FLOW = "east->west";

/** One source topic of a cycle: its ID, the partitions in the order the source lists them. */
interface TopicSpec {
  name: string;
  id?: string;
  partitions: number[];
  /** No remote topic on the target. */
  notOnTarget?: boolean;
  /** Source partitions whose ListOffsets failed this cycle. */
  unreadable?: number[];
}

interface CycleSpec {
  topics: TopicSpec[];
  targetStale?: boolean;
  positionsError?: string;
}

const base: TopicSpec[] = [
  { name: "orders", partitions: [0, 1, 2] },
  { name: "Payments", partitions: [1, 0] },
  { name: "clicks-b", partitions: [0, 1] },
  { name: "clicks-A", partitions: [0], notOnTarget: true },
  { name: "mm2-offset-syncs.west.internal", partitions: [0] },
  { name: "heartbeats", partitions: [0] },
  { name: "zeta", partitions: [] },
];
const grown = base.map((t) => (t.name === "orders" ? { ...t, partitions: [0, 1, 2, 3] } : t)).filter((t) => t.name !== "clicks-b");
const recreated = [...grown.map((t) => (t.name === "orders" ? { ...t, unreadable: [1] } : t)), { name: "clicks-b", id: "id-clicks-b-2", partitions: [0] }];
const settled = [...grown, { name: "clicks-b", id: "id-clicks-b-2", partitions: [0] }];
const cycles: CycleSpec[] = [
  { topics: base },
  // orders gains partition 3, clicks-b is deleted.
  { topics: grown },
  // clicks-b is created again (new topic ID, one partition); orders/1 cannot be read.
  { topics: recreated },
  // The target does not answer: every partition is unknown, its missing topics are carried over.
  { topics: settled, targetStale: true },
  // The same topics listed backwards; Connect's positions cannot be read.
  { topics: [...settled].reverse(), positionsError: "connect-1: 503" },
  // A topic whose name differs from another only in case arrives, heartbeats goes.
  { topics: [...settled.filter((t) => t.name !== "heartbeats"), { name: "Orders", partitions: [1, 0] }] },
  { topics: [...settled.filter((t) => t.name !== "heartbeats"), { name: "Orders", partitions: [1, 0] }] },
];

function logEndOf(cycle: number, topic: string, partition: number): bigint {
  return BigInt(1_000 * cycle + 10 * partition + topic.length);
}

/** Source, target and readings of cycle `c` (1-based): the source grows by 1,000 a cycle, MM2 trails by 5. */
function snapshotOf(c: number, spec: CycleSpec): { source: ClusterSnapshot; target: ClusterSnapshot; readings: FlowReadings } {
  const sourceTopics = spec.topics.map((t) =>
    makeTopic(
      t.name,
      t.partitions.map((p): Partial<PartitionState> => (t.unreadable?.includes(p) ? { partition: p, logStart: null, logEnd: null, error: "NOT_LEADER_OR_FOLLOWER" } : { partition: p, logStart: 7n, logEnd: logEndOf(c, t.name, p) })),
      { topicId: t.id ?? `id-${t.name}` },
    ),
  );
  const targetTopics = spec.topics
    .filter((t) => !t.notOnTarget)
    .map((t) => makeTopic(`east.${t.name}`, [...t.partitions].sort((a, b) => a - b).map((p) => ({ partition: p, logStart: 0n, logEnd: logEndOf(c, t.name, p) - 3n }))));
  const positions = new Map<string, bigint>();
  const syncHistory = new Map<string, readonly SyncPoint[]>();
  for (const t of spec.topics) {
    for (const p of t.partitions) {
      positions.set(`${t.name}/${p}`, logEndOf(c, t.name, p) - 6n);
      // Syncs on even partitions: the target's log end proves the source log end − 1.
      if (p % 2 === 0) syncHistory.set(`${FLOW}|${t.name}|${p}`, [{ upstream: logEndOf(c, t.name, p) - 20n, downstream: logEndOf(c, t.name, p) - 22n }]);
    }
  }
  return {
    source: makeCluster("east", sourceTopics),
    target: makeCluster("west", targetTopics, spec.targetStale ? { reachable: false, stale: true, error: "timeout" } : {}),
    readings: makeReadings({ positions, syncHistory, failures: { positionsError: spec.positionsError ?? null, syncsError: null } }),
  };
}

/** The flow's partitions, coverage and totals built the plain way: one pass per partition, one comparator sort. */
function buildPlainly(def: FlowDefinition, source: ClusterSnapshot, target: ClusterSnapshot, readings: FlowReadings, now: number, previous: PreviousFlow | null): Pick<Flow, "partitions" | "coverage" | "totals"> {
  const judge = createUnknownJudge(source, target, readings.failures, previous);
  const targetNames = new Set(target.topics.map((t) => t.name));
  const rows: FlowPartition[] = [];
  const unmatched: { topic: string; reason: string | null; internal: boolean }[] = [];
  for (const topic of source.topics) {
    const verdict = decideMembership(def, topic, { targetTopics: targetNames, positionTopics: new Set() });
    if (!verdict.member) {
      unmatched.push({ topic: topic.name, reason: verdict.reason, internal: topic.internal || def.policy.isInternalTopic(topic.name) });
      continue;
    }
    const targetTopic = `east.${topic.name}`;
    for (const p of topic.partitions) {
      const t = target.topics.find((x) => x.name === targetTopic)?.partitions.find((x) => x.partition === p.partition);
      const last = readings.positions?.get(`${topic.name}/${p.partition}`);
      const committedPosition = last === undefined ? null : last + 1n;
      const latestSync = readSyncHistories(readings.syncHistory).list(`${FLOW}|${topic.name}|${p.partition}`).at(-1) ?? null;
      const derived = derivePosition(latestSync, t?.logEnd ?? null, p.logEnd);
      const useDerived = derived !== null && (committedPosition === null || derived > committedPosition);
      const mm2Position = useDerived ? derived : committedPosition;
      let lag: bigint | null = null;
      if (p.logEnd !== null && mm2Position === null && p.logStart === p.logEnd) lag = 0n;
      if (p.logEnd !== null && mm2Position !== null) {
        const from = p.logStart !== null && p.logStart > mm2Position ? p.logStart : mm2Position;
        lag = p.logEnd > from ? p.logEnd - from : 0n;
      }
      rows.push({
        topic: topic.name,
        partition: p.partition,
        targetTopic,
        sourceConnector: "mm2-source",
        sourceTopicId: topic.topicId,
        sourceLogStart: p.logStart,
        sourceLogEnd: p.logEnd,
        sourceLeaderEpoch: p.leaderEpoch,
        mm2Position,
        committedPosition,
        positionSource: mm2Position === null ? null : useDerived ? "offset-sync" : "committed",
        targetLogStart: t?.logStart ?? null,
        targetLogEnd: t?.logEnd ?? null,
        lag,
        offsetLag: lag,
        lagBasis: "offsets",
        transactionMarkersSeen: false,
        targetDensityIssue: null,
        latestSync,
        oldestUnreplicatedTimestamp: null,
        unknown: judge(p, t, useDerived ? "offset-sync" : "committed"),
      });
    }
  }
  rows.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  const matched = [...new Set(rows.map((r) => r.topic))];
  const before = previous?.flow.coverage?.missingOnTarget ?? [];
  const targetKnown = target.reachable && !target.stale;
  const missing = matched
    .filter((topic) => !targetNames.has(`east.${topic}`))
    .map((topic) => ({ topic, targetTopic: `east.${topic}`, since: before.find((m) => m.topic === topic)?.since ?? now }));
  const beforePartitions = previous?.flow.coverage?.partitionsMissingOnTarget ?? [];
  const partitionsMissing = matched
    .map((topic) => {
      const remote = target.topics.find((x) => x.name === `east.${topic}`);
      const absent = rows.filter((r) => r.topic === topic && remote !== undefined && !remote.partitions.some((x) => x.partition === r.partition));
      const since = beforePartitions.find((m) => m.topic === topic)?.since ?? now;
      return { topic, targetTopic: `east.${topic}`, partitions: absent.map((r) => r.partition), since };
    })
    .filter((m) => m.partitions.length > 0);
  const lags = rows.map((r) => r.lag);
  return {
    partitions: rows,
    coverage: {
      filterKnown: true,
      matchedByFilter: matched.filter((t) => t !== "heartbeats").length,
      unmatched,
      missingOnTarget: targetKnown ? missing : before,
      partitionsMissingOnTarget: targetKnown ? partitionsMissing : beforePartitions,
      targetKnown,
    },
    totals: {
      topics: matched.length,
      partitions: rows.length,
      lag: lags.reduce<bigint>((sum, l) => sum + (l ?? 0n), 0n),
      unknownPositions: lags.filter((l) => l === null).length,
    },
  };
}

describe("buildFlow over cycles", () => {
  it("gives, cycle after cycle, exactly the flow a plain build of each snapshot gives", () => {
    const def = makeDefinition();
    let previous: PreviousFlow | null = null;
    const flows: Flow[] = [];
    cycles.forEach((spec, i) => {
      const now = T0 + i * 5_000;
      const { source, target, readings } = snapshotOf(i + 1, spec);
      const flow = buildFlow(def, source, target, readings, now, previous);
      const plain = buildPlainly(def, source, target, readings, now, previous);
      expect(flow.partitions).toStrictEqual(plain.partitions);
      expect(flow.coverage).toStrictEqual(plain.coverage);
      expect(flow.totals).toStrictEqual(plain.totals);
      flows.push(flow);
      previous = { flow, takenAt: now };
    });
    const names = (f: Flow) => f.partitions.map((p) => `${p.topic}/${p.partition}`);
    expect(names(flows[0]!)).toEqual(["clicks-A/0", "clicks-b/0", "clicks-b/1", "heartbeats/0", "orders/0", "orders/1", "orders/2", "Payments/0", "Payments/1"]);
    expect(names(flows[6]!)).toEqual(["clicks-A/0", "clicks-b/0", "orders/0", "orders/1", "orders/2", "orders/3", "Orders/0", "Orders/1", "Payments/0", "Payments/1"]);
    // Cycle 3: orders/1 unreadable; the re-created clicks-b carries its new topic ID.
    expect(flows[2]!.partitions.find((p) => p.topic === "orders" && p.partition === 1)).toMatchObject({ lag: null, unknown: { reason: "east orders/1: NOT_LEADER_OR_FOLLOWER", dataAt: T0 + 5_000 } });
    expect(flows[2]!.partitions.find((p) => p.topic === "clicks-b")).toMatchObject({ sourceTopicId: "id-clicks-b-2", mm2Position: 3_007n, lag: 1n });
    // Even partitions (a sync): the target proves the source log end − 1; odd ones (none): Connect's position, 5 behind.
    expect(flows[1]!.partitions.filter((p) => p.topic === "orders").map((p) => [p.mm2Position, p.positionSource, p.lag])).toEqual([
      [2_005n, "offset-sync", 1n],
      [2_011n, "committed", 5n],
      [2_025n, "offset-sync", 1n],
      [2_031n, "committed", 5n],
    ]);
    // clicks-A has no remote topic since cycle 1: kept while the target is unread (cycle 4), and after.
    expect(flows.map((f) => f.coverage?.missingOnTarget)).toEqual(flows.map(() => [{ topic: "clicks-A", targetTopic: "east.clicks-A", since: T0 }]));
    // Cycle 5: Connect's positions unread: the 4 partitions placed by them are unknown (their lag still counted).
    expect(flows[4]!.totals).toEqual({ topics: 5, partitions: 9, lag: 4n * 5n + 5n * 1n, unknownPositions: 0 });
    expect(flows[4]!.partitions.filter((p) => p.unknown !== null).map((p) => `${p.topic}/${p.partition}`)).toEqual(["clicks-A/0", "orders/1", "orders/3", "Payments/1"]);
  });
});
