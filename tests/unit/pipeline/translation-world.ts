/**
 * A random world of one flow's translation cycles (reused-translation-rows.test.ts, served-translations.test.ts): groups
 * that grow, shrink and change partitions, rows that switch between numbers and objects (a partition the flow does not
 * replicate, a negative offset), checkpoints now and then, and gaps on the target (brackets).
 */
import { type CheckpointPoint, type ClusterSnapshot, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import { FLOW, makeFlow, makeFlowPartition, makeGroup, T0 } from "../translation/fixtures";
import { createRandom } from "../seeded-random";

const stepMs = 5_000;
const topics = ["orders", "payments"];
const flowParts = topics.flatMap((topic) => [0, 1, 2, 3, 4, 5].map((partition) => ({ topic, partition })));

function makeSourceCluster(groups: ClusterSnapshot["groups"], now: number): ClusterSnapshot {
  return {
    alias: "east", bootstrap: ["east:9092"], reachable: true, error: null, dataAt: now, stale: false,
    brokers: [], controllerId: 1, topics: [], groups, uncleanLeaderElectionDefault: false,
  };
}

/** Group partitions per cycle: steady, then few (columns too large), then many (too small), then steady again. */
function countGroupPartitions(c: number): number {
  if (c <= 12) return 4;
  if (c <= 18) return 1;
  if (c <= 26) return 8;
  return 5;
}

/** The world of seed `seed`: `advance(c)` gives cycle c's snapshot; the sync history grows in place. */
export function createWorld(seed: number) {
  const random = createRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const history = new Map<string, SyncPoint[]>();
  const positions = new Map<string, bigint>();
  for (const { topic, partition } of flowParts) {
    const key = flowPartitionKey(FLOW, topic, partition);
    history.set(key, [{ upstream: 0n, downstream: 3n }]);
    positions.set(key, 0n);
  }
  const checkpoints = new Map<string, CheckpointPoint>();
  const groupIds = ["app", "billing", "audit", "reports", "search"];
  const advance = (c: number): Snapshot => {
    const now = T0 + c * stepMs;
    for (const { topic, partition } of flowParts) {
      const key = flowPartitionKey(FLOW, topic, partition);
      const position = positions.get(key)! + BigInt(1 + pick(40));
      positions.set(key, position);
      // A gap now and then on the target: the ideal position becomes a bracket.
      if (random() < 0.3) history.get(key)!.push({ upstream: position, downstream: position + 3n + BigInt(pick(3)) });
    }
    const groups = groupIds.slice(0, 3 + (c % 3)).map((group) => {
      const offsets: Record<string, bigint> = {};
      const count = countGroupPartitions(c) + pick(2);
      for (let i = 0; i < count; i++) {
        const { topic, partition } = flowParts[pick(flowParts.length)]!;
        const position = positions.get(flowPartitionKey(FLOW, topic, partition))!;
        const offset = position - BigInt(pick(60));
        offsets[`${topic}/${partition}`] = offset < 0n ? 0n : offset;
        if (random() < 0.25) {
          const point = { group, topic, partition, upstream: offset + BigInt(pick(5)), downstream: offset + 3n, at: now - pick(3) * 1_000 };
          checkpoints.set(`${group}|${topic}|${partition}`, point);
        }
      }
      // A partition the flow does not replicate: a row held as an object, at a row another cycle holds numbers in.
      if (random() < 0.4) offsets[`audit-log/${pick(3)}`] = BigInt(pick(100));
      if (random() < 0.2) offsets[`orders/${pick(6)}`] = -1n;
      return makeGroup(group, offsets, { dataAt: now - 1_000 });
    });
    const partitions = flowParts.map(({ topic, partition }) => {
      const logEnd = positions.get(flowPartitionKey(FLOW, topic, partition))! + BigInt(pick(30));
      return makeFlowPartition({ topic, partition, sourceLogEnd: logEnd });
    });
    const flow = makeFlow({ partitions, checkpoints: [...checkpoints.values()] });
    return { cycle: c, takenAt: now, durationMs: 1, connect: [], malformedRecords: {}, clusters: [makeSourceCluster(groups, now)], flows: [flow] };
  };
  return { history, advance };
}

