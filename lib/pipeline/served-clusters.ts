/**
 * A model's clusters as the encoder takes them: each topic whose partition states were not made (the cluster poll's
 * rows, lib/collector/cluster-partition-rows.ts) hands them over as ColumnarRows (columnar-source.ts), written from
 * the rows byte for byte as the made states would be (ClusterPartitionRows.makePartition), without a PartitionState
 * or its bigints being made: at 100,000 flow partitions that was about 200,000 objects a cycle, made only to be split
 * into columns again. Only the encoder reads these.
 */
import {
  type ClusterPartitionRows, findTopicRows, partitionStateKeys, type TopicRows,
} from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import { type ColumnarRows, type ColumnSink, columnarRows } from "./columnar-source";

/** `clusters`, each one with a topic with rows copied with its topics' `partitions` (in their place) the rows. */
export function serveClusterRows(clusters: readonly ClusterSnapshot[]): readonly unknown[] {
  const lists = new ReplicaLists();
  const serveTopic = (topic: TopicState) => serveTopicRows(topic, lists);
  return clusters.map((cluster) =>
    cluster.topics.some((t) => findTopicRows(t) !== undefined) ? { ...cluster, topics: cluster.topics.map(serveTopic) } : cluster,
  );
}

/** The topic, or a copy whose `partitions` is its rows. */
function serveTopicRows(topic: TopicState, lists: ReplicaLists): unknown {
  const found = findTopicRows(topic);
  if (found === undefined) return topic;
  const served: Record<string, unknown> = {};
  // Reading `partitions` would make them: every other property is copied.
  for (const key of Object.keys(topic)) {
    served[key] = key === "partitions" ? new TopicPartitionRows(found, lists) : topic[key as keyof TopicState];
  }
  return served;
}

/** A state's shapes: makePartition's keys, then with the rare fields in the order it adds them (epoch end, ELR, both). */
const shapes = [
  partitionStateKeys,
  [...partitionStateKeys, "previousEpochEnd"],
  [...partitionStateKeys, "eligibleLeaderReplicas"],
  [...partitionStateKeys, "previousEpochEnd", "eligibleLeaderReplicas"],
];

/** One topic's partition states held as rows, as the encoder takes them. */
class TopicPartitionRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(
    private readonly found: TopicRows,
    private readonly lists: ReplicaLists,
  ) {}

  get length(): number {
    return this.found.to - this.found.from;
  }

  writeRows(sink: ColumnSink): void {
    const { rows, topic, from, to } = this.found;
    for (let at = from; at < to; at++) {
      // An offset beyond 2^53 is held apart as a bigint: such a state is rare, made.
      if (rows.isInexact(at)) sink.value(rows.makePartition(topic, at));
      else writeState(rows, topic, at, sink, this.lists);
    }
  }

  listRows(): readonly unknown[] {
    return this.found.rows.makeTopicPartitions(this.found.topic);
  }
}

/** Writes the state at `at` of topic `t` as ClusterPartitionRows.makePartition makes it (no offset beyond 2^53). */
function writeState(rows: ClusterPartitionRows, t: number, at: number, sink: ColumnSink, lists: ReplicaLists): void {
  const rare = rows.rare.size === 0 ? undefined : rows.rare.get(at);
  const epochEnd = rare?.previousEpochEnd;
  const elr = rare?.eligibleLeaderReplicas;
  const columns = sink.object(shapes[(epochEnd === undefined ? 0 : 1) + (elr === undefined ? 0 : 2)]!);
  columns[0]!.value(rows.topicNames[t]);
  columns[1]!.value(rows.partition[at]);
  columns[2]!.value(rows.leaderOf(at));
  columns[3]!.value(rows.leaderEpoch[at]);
  columns[4]!.value(lists.read(rows, at, 0));
  columns[5]!.value(lists.read(rows, at, 1));
  columns[6]!.value(lists.read(rows, at, 2));
  writeOffset(rows.logStart[at]!, columns[7]!);
  writeOffset(rows.logEnd[at]!, columns[8]!);
  columns[9]!.value(rows.errorOf(at));
  let k = 10;
  if (epochEnd !== undefined) columns[k++]!.value(epochEnd);
  if (elr !== undefined) columns[k]!.value(elr);
}

/** An offset as the bigint (or null) it stands for: exact, as the rows hold none beyond 2^53 here. */
function writeOffset(n: number, sink: ColumnSink): void {
  if (Number.isNaN(n)) sink.value(null);
  else sink.int64(n);
}

/**
 * The replica lists written, one array per list of ids: a cluster's lists repeat (its brokers' few combinations),
 * and three new arrays a state were about 600,000 short arrays a publication at 100,000 flow partitions. The encoder
 * only reads them.
 */
class ReplicaLists {
  private readonly byIds = new Map<number, number[]>();

  /** List `k` (0 replicas, 1 ISR, 2 offline replicas) of the state at `at`: shared when of up to three ids < 1,024. */
  read(rows: ClusterPartitionRows, at: number, k: number): number[] {
    const start = rows.listStart[at * 3 + k]!;
    const end = rows.listStart[at * 3 + k + 1]!;
    if (end - start > 3) return rows.makeList(at, k);
    // The count, then each id in 10 bits: one number per list (below 2^32).
    let key = end - start;
    for (let i = start; i < end; i++) {
      const id = rows.ids[i]!;
      if (id < 0 || id >= 1024) return rows.makeList(at, k);
      key = key * 1024 + id;
    }
    let list = this.byIds.get(key);
    if (list === undefined) this.byIds.set(key, (list = rows.makeList(at, k)));
    return list;
  }
}
