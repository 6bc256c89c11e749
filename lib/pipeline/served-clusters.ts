/**
 * A model's clusters as the encoder takes them: each topic whose partition states were not made (the cluster poll's
 * rows, lib/collector/cluster-partition-rows.ts) hands them over as ColumnarRows (columnar-source.ts), written from
 * the rows byte for byte as the made states would be (ClusterPartitionRows.makePartition), without a PartitionState
 * or its bigints being made: at 100,000 flow partitions that was about 200,000 objects a cycle, made only to be split
 * into columns again. The rows are written a column at a time (ColumnBlockSink), every topic of a cluster one after
 * the other as one run (writeRowsOf): value by value, a state cost about 15 calls into the encoder. Only the encoder
 * reads these.
 */
import {
  type ClusterPartitionRows, findTopicRows, partitionStateKeys, type TopicRows,
} from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "./columnar-source";
import { hasKeysInOrder } from "./plain-shapes";

/** `clusters`, each one with a topic with rows copied with its topics' `partitions` (in their place) the rows. */
export function serveClusterRows(clusters: readonly ClusterSnapshot[]): readonly unknown[] {
  return clusters.map((cluster) =>
    cluster.topics.some((t) => findTopicRows(t) !== undefined) ? { ...cluster, topics: cluster.topics.map(serveTopicRows) } : cluster,
  );
}

/** A topic's keys as the cluster poll makes it (cluster-poll.ts), in order. */
const polledTopicKeys = ["name", "topicId", "internal", "configs", "partitions"];

/** The topic, or a copy whose `partitions` is its rows. */
function serveTopicRows(topic: TopicState): unknown {
  const found = findTopicRows(topic);
  if (found === undefined) return topic;
  const partitions = new TopicPartitionRows(found);
  const keys = Object.keys(topic);
  // One literal where the keys are the poll's (every topic, ~36,000 at 100,000 partitions), not a store per key.
  if (hasKeysInOrder(keys, polledTopicKeys)) {
    return { name: topic.name, topicId: topic.topicId, internal: topic.internal, configs: topic.configs, partitions };
  }
  const served: Record<string, unknown> = {};
  // Reading `partitions` would make them: every other property is copied.
  for (const key of keys) served[key] = key === "partitions" ? partitions : topic[key as keyof TopicState];
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

  constructor(readonly found: TopicRows) {}

  get length(): number {
    return this.found.to - this.found.from;
  }

  writeRows(sink: ColumnBlockSink): void {
    writeTopics([this.found], sink);
  }

  writeRowsOf(all: readonly ColumnarRows[], sink: ColumnBlockSink): void {
    writeTopics(all.map((rows) => (rows as TopicPartitionRows).found), sink);
  }

  listRows(): readonly unknown[] {
    return this.found.rows.makeTopicPartitions(this.found.topic);
  }
}

/** Writes the states of `topics`, in order: each run of topics that follow each other in one cluster's rows at once. */
function writeTopics(topics: readonly TopicRows[], sink: ColumnBlockSink): void {
  for (let i = 0; i < topics.length; ) {
    let end = i + 1;
    while (end < topics.length && topics[end]!.rows === topics[i]!.rows && topics[end]!.from === topics[end - 1]!.to) end++;
    writeSpan(topics.slice(i, end), sink);
    i = end;
  }
}

/** Writes the states of `topics` (consecutive in one cluster's rows); one with an offset beyond 2^53 is made. */
function writeSpan(topics: readonly TopicRows[], sink: ColumnBlockSink): void {
  const rows = topics[0]!.rows;
  let start = topics[0]!.from;
  // A pass over every position only where some state has such an offset (a cluster's few).
  for (const topic of rows.hasInexact() ? topics : []) {
    for (let at = topic.from; at < topic.to; at++) {
      // Such an offset is held apart as a bigint: a rare state, made.
      if (!rows.isInexact(at)) continue;
      writeStates(topics, start, at, sink);
      sink.value(rows.makePartition(topic.topic, at));
      start = at + 1;
    }
  }
  writeStates(topics, start, topics[topics.length - 1]!.to, sink);
}

/** Scratch columns, grown to the longest run: the encoder copies what it is handed. */
const scratch = { shapeOf: new Uint8Array(0), lengths: new Uint32Array(0), ids: new Int32Array(0), texts: [] as string[] };

/**
 * Writes the states at [start, end) of `topics`' rows (none with an offset beyond 2^53) as makePartition makes them,
 * a column at a time.
 */
function writeStates(topics: readonly TopicRows[], start: number, end: number, sink: ColumnBlockSink): void {
  const n = end - start;
  if (n <= 0) return;
  const rows = topics[0]!.rows;
  if (scratch.shapeOf.length < n) scratch.shapeOf = new Uint8Array(Math.max(n, scratch.shapeOf.length * 2));
  const { shapeOf } = scratch;
  const epochEnds: unknown[] = [];
  const elrs: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const rare = rows.rare.size === 0 ? undefined : rows.rare.get(start + i);
    const epochEnd = rare?.previousEpochEnd;
    const elr = rare?.eligibleLeaderReplicas;
    shapeOf[i] = (epochEnd === undefined ? 0 : 1) + (elr === undefined ? 0 : 2);
    if (epochEnd !== undefined) epochEnds.push(epochEnd);
    if (elr !== undefined) elrs.push(elr);
  }
  const columns = sink.objects(shapes, shapeOf, 0, n);
  for (const topic of topics) {
    const count = Math.min(end, topic.to) - Math.max(start, topic.from);
    if (count > 0) columns[0]!.repeat(rows.topicNames[topic.topic]!, count);
  }
  columns[1]!.primitives(rows.partition, start, end);
  writeCoded(rows.leader, start, end, undefined, columns[2]!);
  columns[3]!.primitives(rows.leaderEpoch, start, end);
  for (let k = 0; k < 3; k++) writeLists(rows, start, end, k, columns[4 + k]!);
  columns[7]!.nullableInt64s(rows.logStart, start, end);
  columns[8]!.nullableInt64s(rows.logEnd, start, end);
  writeCoded(rows.errorAt, start, end, rows.errors, columns[9]!);
  for (const epochEnd of epochEnds) columns[10]!.value(epochEnd);
  for (const elr of elrs) columns[11]!.value(elr);
}

/**
 * Writes rows [start, end) of a column coded −1 for null, the others `names[code]`, or without names the code itself:
 * each run of nulls, or of values, at once.
 */
function writeCoded(
  codes: Int32Array, start: number, end: number, names: readonly string[] | undefined, sink: ColumnBlockSink,
): void {
  for (let i = start; i < end; ) {
    const isNull = codes[i]! < 0;
    let j = i + 1;
    while (j < end && codes[j]! < 0 === isNull) j++;
    if (isNull) sink.repeat(null, j - i);
    else if (names === undefined) sink.primitives(codes, i, j);
    else {
      const texts = scratch.texts;
      texts.length = j - i;
      for (let at = i; at < j; at++) texts[at - i] = names[codes[at]!]!;
      sink.primitives(texts, 0, j - i);
    }
    i = j;
  }
}

/** Writes list `k` (0 replicas, 1 ISR, 2 offline replicas) of the states at [start, end) as arrays of broker ids. */
function writeLists(rows: ClusterPartitionRows, start: number, end: number, k: number, sink: ColumnBlockSink): void {
  const n = end - start;
  if (scratch.lengths.length < n) scratch.lengths = new Uint32Array(Math.max(n, scratch.lengths.length * 2));
  const { lengths } = scratch;
  const { listStart } = rows;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const at = (start + i) * 3 + k;
    total += lengths[i] = listStart[at + 1]! - listStart[at]!;
  }
  if (scratch.ids.length < total) scratch.ids = new Int32Array(Math.max(total, scratch.ids.length * 2));
  const { ids } = scratch;
  for (let i = 0, to = 0; i < n; i++) {
    const at = (start + i) * 3 + k;
    for (let from = listStart[at]!; from < listStart[at + 1]!; from++) ids[to++] = rows.ids[from]!;
  }
  sink.arrays(lengths, 0, n).primitives(ids, 0, total);
}
