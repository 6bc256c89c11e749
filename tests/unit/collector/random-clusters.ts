/**
 * Random clusters as the brokers answer them (Metadata, ListOffsets, OffsetForLeaderEpoch, DescribeTopicPartitions),
 * with leader marks, for the differential tests of the cluster poll's partition rows.
 */
import { pollCluster } from "@/lib/collector/cluster-poll";
import type { LeaderMark } from "@/lib/collector/leader-marks";
import type { ClusterSnapshot, PartitionState, TopicState } from "@/lib/collector/types";
import type { ClusterMetadata, ClusterReader, EpochEndOffset, ItemError, PartitionOffsets, TopicMetadata } from "@/lib/kafka";
import { T0 } from "./fixtures";

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function createRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** One random cluster: what Metadata, ListOffsets, OffsetForLeaderEpoch and DescribeTopicPartitions answer. */
export interface RandomCluster {
  metadata: ClusterMetadata;
  offsets: Map<string, PartitionOffsets | ItemError> | Error;
  marks: Map<string, LeaderMark>;
  ends: Map<string, EpochEndOffset | ItemError> | Error;
  elr: Map<string, number[]> | null | Error;
}

const bigOffsets = [0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -1n];

/**
 * A random cluster; its topics are named `<prefix>topic-<n>`; `exact`: no offset beyond 2^53 − 1; a partition's
 * replicas are the first few of `brokers` (up to all but one).
 */
export function makeRandomCluster(
  seed: number, prefix = "", exact = false, brokers: readonly number[] = [1, 2, 3, 4, 5],
): RandomCluster {
  const r = createRandom(seed);
  const pick = <T,>(values: readonly T[]): T => values[r(values.length)]!;
  const list = () => brokers.slice(0, r(brokers.length));
  const offsets = exact ? bigOffsets.filter((o) => o <= 2n ** 53n - 1n) : bigOffsets;
  const offset = () => (r(10) === 0 ? pick(offsets) : BigInt(r(1_000_000)));
  const topics: TopicMetadata[] = [];
  const answers = new Map<string, PartitionOffsets | ItemError>();
  const marks = new Map<string, LeaderMark>();
  const ends = new Map<string, EpochEndOffset | ItemError>();
  const elr = new Map<string, number[]>();
  const topicCount = r(14);
  for (let t = 0; t < topicCount; t++) {
    const name = r(6) === 0 && t > 0 ? topics[t - 1]!.name : `${prefix}topic-${t}`;
    const count = pick([0, 1, 2, 3, 7, 12, 20]);
    const order = Array.from({ length: count }, (_, i) => i);
    if (r(4) === 0) order.reverse();
    const partitions = order.map((partition) => {
      const replicas = list();
      const leader = r(6) === 0 || replicas.length === 0 ? null : replicas[0]!;
      const isr = r(3) === 0 && leader !== null ? [leader] : replicas.slice(0, r(replicas.length + 1));
      const leaderEpoch = r(20);
      const key = `${name}/${partition}`;
      const answer = r(8);
      if (answer === 0) answers.set(key, { error: pick(["NOT_LEADER_OR_FOLLOWER", "TOPIC_AUTHORIZATION_FAILED"]) });
      else if (answer > 1) answers.set(key, { logStart: offset(), logEnd: offset(), leaderEpoch: r(20) });
      if (r(3) === 0) marks.set(key, { epoch: r(20), logEnd: offset(), topicId: pick([null, `id-${t}`, "other"]), seenAt: T0 - r(1000) });
      if (r(2) === 0) ends.set(key, r(5) === 0 ? { error: "FENCED_LEADER_EPOCH" } : { leaderEpoch: r(20), endOffset: offset() });
      if (r(2) === 0) elr.set(key, brokers.slice(0, r(3)));
      const offlineReplicas = r(5) === 0 ? [pick(brokers)] : [];
      return { partition, leader, leaderEpoch, replicas, isr, offlineReplicas, error: r(10) === 0 ? "LEADER_NOT_AVAILABLE" : null };
    });
    topics.push({ name, topicId: r(4) === 0 ? null : `id-${t}`, isInternal: r(10) === 0, error: null, partitions });
  }
  const metadata: ClusterMetadata = { clusterId: "c", controllerId: 1, brokers: [], topics };
  const failing = r(6);
  return {
    metadata,
    offsets: failing === 0 ? new Error("broker down") : answers,
    marks,
    ends: failing === 1 ? new Error("timed out") : ends,
    elr: failing === 2 ? new Error("timed out") : failing === 3 ? null : elr,
  };
}

export function makeReader(cluster: RandomCluster): ClusterReader {
  const unused = () => Promise.reject(new Error("not read by pollCluster"));
  const answer = <T,>(value: T | Error) => () => (value instanceof Error ? Promise.reject(value) : Promise.resolve(value));
  return {
    alias: "east",
    readMetadata: () => Promise.resolve(cluster.metadata),
    readLogOffsets: answer(cluster.offsets),
    readTopicConfigs: () => Promise.resolve(new Map()),
    readBrokerUncleanElection: () => Promise.resolve(false),
    listGroups: () => Promise.resolve([]),
    readGroupOffsets: unused,
    readEpochEndOffsets: answer(cluster.ends),
    readEligibleLeaders: answer(cluster.elr),
    readShareGroupOffsets: unused,
    fetchRecords: unused,
    fetchPartitions: unused,
    requestCounts: () => [],
    resetRequestCounts: () => undefined,
    close: () => Promise.resolve(),
  };
}

/** The partition states as the cluster poll made them before rows (objects from the answers). */
export function makeExpectedTopics(cluster: RandomCluster): TopicState[] {
  const offsets = cluster.offsets instanceof Error ? new Map<string, PartitionOffsets | ItemError>() : cluster.offsets;
  const offsetsError = cluster.offsets instanceof Error ? `ListOffsets: ${cluster.offsets.message}` : "no offsets returned";
  return cluster.metadata.topics.map((t) => ({
    name: t.name,
    topicId: t.topicId,
    internal: t.isInternal,
    configs: null,
    partitions: t.partitions.map((p): PartitionState => {
      const o = offsets.get(`${t.name}/${p.partition}`);
      const read = o === undefined || "error" in o ? null : o;
      const failed = o === undefined ? offsetsError : "error" in o ? `ListOffsets: ${o.error}` : null;
      return {
        topic: t.name,
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: read === null ? p.leaderEpoch : Math.max(read.leaderEpoch, p.leaderEpoch),
        replicas: [...p.replicas],
        isr: [...p.isr],
        offlineReplicas: [...p.offlineReplicas],
        logStart: read?.logStart ?? null,
        logEnd: read?.logEnd ?? null,
        error: p.error ?? failed,
      };
    }),
  }));
}

/** The cluster as the poll makes it now (its topics' partitions in rows, unmade). */
export function pollRandomCluster(
  cluster: RandomCluster,
  marks: ReadonlyMap<string, LeaderMark> = cluster.marks,
  now = T0,
  alias = "east",
): Promise<ClusterSnapshot> {
  const options = { refreshConfigs: false, now, leaderMarks: marks };
  return pollCluster(makeReader(cluster), { alias, bootstrap: [] }, null, options);
}
