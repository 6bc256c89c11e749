/**
 * Clusters as a collector's snapshot holds them, varied the way the encoder's arrays of arrays can be (a topic's
 * partition states, a state's replica lists): unknown offsets, offline leaders, empty topics and replica lists,
 * offsets beyond 2^53 and beyond int64, previous-epoch ends, eligible leader replicas ([] and null), a stale
 * unreachable cluster, topic configs not read yet. The same on every call for a seed.
 */
import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import { createRandom } from "../seeded-random";

function makeState(random: () => number, topic: string, partition: number): PartitionState {
  const brokers = [1, 2, 3, 4].slice(0, Math.floor(random() * 5));
  const offsets = random() < 0.1 ? null : random() < 0.1 ? 2n ** 53n + BigInt(partition) : random() < 0.03 ? 2n ** 63n + 5n : BigInt(Math.floor(random() * 1e9));
  const state: PartitionState = {
    topic,
    partition,
    leader: random() < 0.1 ? null : (brokers[0] ?? 1),
    leaderEpoch: Math.floor(random() * 50) - (random() < 0.05 ? 1 : 0),
    replicas: brokers,
    isr: brokers.slice(0, Math.floor(random() * (brokers.length + 1))),
    offlineReplicas: random() < 0.1 ? brokers.slice(1) : [],
    logStart: offsets === null ? null : offsets / 2n,
    logEnd: offsets,
    error: offsets === null ? "ListOffsets: NOT_LEADER_OR_FOLLOWER" : null,
  };
  const extra = random();
  if (extra < 0.05) state.previousEpochEnd = { epoch: 3, endOffset: random() < 0.5 ? null : 77n, knownLogEnd: 80n, knownAt: 1_796_000_000_000 };
  else if (extra < 0.1) state.eligibleLeaderReplicas = random() < 0.3 ? null : brokers.slice(1);
  return state;
}

function makeTopic(random: () => number, cluster: string, t: number): TopicState {
  const name = `${cluster}.topic-${t}`;
  const count = random() < 0.1 ? 0 : 1 + Math.floor(random() * 12);
  return {
    name,
    topicId: random() < 0.05 ? null : `00000000-0000-0000-0000-${String(t).padStart(12, "0")}`,
    internal: random() < 0.05,
    configs: random() < 0.2 ? null : {
      retentionMs: random() < 0.3 ? null : 604_800_000n, retentionBytes: null, cleanupPolicy: "delete",
      uncleanLeaderElection: false, minInsyncReplicas: random() < 0.1 ? null : 2,
    },
    partitions: Array.from({ length: count }, (_, p) => makeState(random, name, p)),
  };
}

/** `clusters` clusters of up to `maxTopics` topics each; the last one stale and unreachable. */
export function makeClusterSnapshots(seed: number, clusters: number, maxTopics: number): ClusterSnapshot[] {
  const random = createRandom(seed);
  return Array.from({ length: clusters }, (_, c) => {
    const alias = `cluster-${c}`;
    const stale = c === clusters - 1;
    return {
      alias,
      bootstrap: [`${alias}:9092`],
      reachable: !stale,
      error: stale ? "connect ECONNREFUSED" : null,
      dataAt: 1_796_000_000_000 - (stale ? 60_000 : 0),
      stale,
      brokers: [{ nodeId: 1, host: `${alias}-1`, port: 9092, rack: null }],
      controllerId: stale ? null : 1,
      topics: Array.from({ length: Math.floor(random() * maxTopics) }, (_, t) => makeTopic(random, alias, t)),
      groups: [],
      uncleanLeaderElectionDefault: c % 2 === 0 ? false : null,
    };
  });
}
