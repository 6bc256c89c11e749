/**
 * A model's flows as the encoder takes them: each flow whose partitions were not made (buildFlow's rows,
 * lib/collector/flow-rows.ts) hands them over as ColumnarRows (columnar-source.ts), written from the rows and the
 * source tail's refinement byte for byte as the made partitions would be (FlowRows.makePartition), without a
 * FlowPartition or its bigints being made: at 100,000 partitions that was 100,000 objects and 700,000 bigints a
 * cycle, made only to be split into columns again. The rows are written a column at a time (ColumnBlockSink), as the
 * clusters' are (served-clusters.ts): value by value, a partition cost about 20 calls into the encoder. A flow's
 * checkpoints are handed over as columns too (served-checkpoints.ts). Only the encoder reads these.
 */
import {
  changedPartitionKeys, findFlowRows, findFlowTails, partitionKeys, type FlowRows, type OffsetField,
  type PartitionTails, type RareFields,
} from "@/lib/collector/flow-rows";
import type { Flow, OffsetSyncPoint } from "@/lib/collector/types";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "./columnar-source";
import { isExactBigint, isPlainObjectOf } from "./plain-shapes";
import { CheckpointRows } from "./served-checkpoints";

/**
 * `flows`, each one with rows or checkpoints copied with its `partitions` the rows and its `checkpoints` handed over
 * as columns (CheckpointRows), each in its place among the keys (for encodeColumnar).
 */
export function serveFlowRows(flows: readonly Flow[]): readonly unknown[] {
  return flows.map(serveFlow);
}

/** The flow, or a copy whose `partitions` is its rows and whose `checkpoints` are written a column at a time. */
function serveFlow(flow: Flow): unknown {
  const rows = findFlowRows(flow);
  // Read only where no rows are: reading `partitions` would make them.
  const checkpoints = Array.isArray(flow.checkpoints) ? flow.checkpoints : undefined;
  if (rows === undefined && (checkpoints === undefined || checkpoints.length === 0)) return flow;
  const served: Record<string, unknown> = {};
  const partitions = rows === undefined ? undefined : new PartitionRows(rows, findFlowTails(flow));
  for (const key of Object.keys(flow)) {
    if (key === "partitions" && partitions !== undefined) served[key] = partitions;
    else if (key === "checkpoints" && checkpoints !== undefined) served[key] = new CheckpointRows(checkpoints);
    else served[key] = flow[key as keyof Flow];
  }
  return served;
}

/** A flow's partitions held as rows, as the encoder takes them. */
class PartitionRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(
    private readonly rows: FlowRows,
    private readonly tails: PartitionTails | undefined,
  ) {}

  get length(): number {
    return this.rows.order.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    const { rows, tails } = this;
    // An offset beyond 2^53 is held apart as a bigint: such a flow is rare (buildFlow refuses it), made row by row.
    if (rows.beyond) for (let i = 0; i < rows.order.length; i++) sink.value(rows.makePartition(i, tails));
    else writePartitions(rows, tails, sink);
  }

  listRows(): readonly unknown[] {
    return this.rows.makePartitions(this.tails);
  }
}

/** A partition's shapes: makePartition's keys and withCopierChange's (ColumnBlockSink.objects' sinks in this order). */
const shapes = [partitionKeys, changedPartitionKeys];
/** The sink of each property after `partitionKeys`' own: `copierChange` (listed last, as the shapes first name it). */
const copierChangeColumn = partitionKeys.length;
const column = Object.fromEntries(partitionKeys.map((key, k) => [key, k])) as Record<string, number>;

/** Scratch columns, grown to the longest flow: the encoder copies what it is handed. */
const scratch = {
  shapeOf: new Uint8Array(0), numbers: new Float64Array(0), second: new Float64Array(0), topicOf: new Int32Array(0),
  texts: [] as (string | null)[], rare: [] as (RareFields | undefined)[],
};

/**
 * Writes every partition of `rows` (no offset beyond 2^53) in sorted order as FlowRows.makePartition makes it, the
 * source tails applied, a column at a time: each column's values gathered from the rows' listed positions (`order`).
 */
function writePartitions(rows: FlowRows, tails: PartitionTails | undefined, sink: ColumnBlockSink): void {
  const n = rows.order.length;
  if (n === 0) return;
  grow(n);
  const { order } = rows;
  const { shapeOf, numbers, topicOf, texts, rare } = scratch;
  const hasRare = rows.hasRareFields();
  for (let i = 0; i < n; i++) {
    const fields = hasRare ? rows.rareFieldsOf(i) : undefined;
    rare[i] = fields;
    shapeOf[i] = fields?.copierChange === undefined ? 0 : 1;
  }
  const columns = sink.objects(shapes, shapeOf, 0, n);
  const to = (key: string): ColumnBlockSink => columns[column[key]!]!;

  for (let i = 0; i < n; i++) topicOf[i] = rows.topicAt[order[i]!]!;
  for (let i = 0; i < n; i++) texts[i] = rows.topics[topicOf[i]!]!.topic;
  writeTexts(texts, n, to("topic"));
  for (let i = 0; i < n; i++) numbers[i] = rows.partition[order[i]!]!;
  to("partition").primitives(numbers, 0, n);
  for (let i = 0; i < n; i++) texts[i] = rows.topics[topicOf[i]!]!.targetTopic;
  writeTexts(texts, n, to("targetTopic"));
  for (let i = 0; i < n; i++) texts[i] = rows.connectorOf(i);
  writeTexts(texts, n, to("sourceConnector"));
  if (hasRare) {
    const changes = columns[copierChangeColumn]!;
    for (let i = 0; i < n; i++) if (shapeOf[i] === 1) changes.value(rare[i]!.copierChange);
  }
  for (let i = 0; i < n; i++) texts[i] = rows.topics[topicOf[i]!]!.sourceTopicId;
  writeTexts(texts, n, to("sourceTopicId"));
  writeOffsets(rows, "sourceLogStart", n, to("sourceLogStart"));
  writeOffsets(rows, "sourceLogEnd", n, to("sourceLogEnd"));
  for (let i = 0; i < n; i++) numbers[i] = rows.leaderEpoch[order[i]!]!;
  writeNumbers(numbers, n, to("sourceLeaderEpoch"));
  writeOffsets(rows, "mm2Position", n, to("mm2Position"));
  writeOffsets(rows, "committedPosition", n, to("committedPosition"));
  for (let i = 0; i < n; i++) texts[i] = rows.positionSourceOf(i);
  writeTexts(texts, n, to("positionSource"));
  writeOffsets(rows, "targetLogStart", n, to("targetLogStart"));
  writeOffsets(rows, "targetLogEnd", n, to("targetLogEnd"));
  writeLags(rows, tails, n, to("lag"), to("lagBasis"));
  writeOffsets(rows, "lag", n, to("offsetLag"));
  writeMarkers(tails, n, to("transactionMarkersSeen"));
  for (let i = 0; i < n; i++) texts[i] = rare[i]?.targetDensityIssue ?? null;
  writeTexts(texts, n, to("targetDensityIssue"));
  writeSyncs(rows, n, to("latestSync"));
  if (tails === undefined) to("oldestUnreplicatedTimestamp").repeat(null, n);
  else writeNumbers(tails.oldest, n, to("oldestUnreplicatedTimestamp"));
  const unknowns = to("unknown");
  if (hasRare) for (let i = 0; i < n; i++) unknowns.value(rare[i]?.unknown ?? null);
  else unknowns.repeat(null, n);
  // Nothing is kept past the flow: the rare fields and texts are the model's, not the encoder's to hold.
  rare.fill(undefined, 0, n);
  texts.fill(null, 0, n);
}

/** Grows the scratch columns to at least `n` rows. */
function grow(n: number): void {
  if (scratch.shapeOf.length >= n) return;
  const length = Math.max(n, scratch.shapeOf.length * 2);
  scratch.shapeOf = new Uint8Array(length);
  scratch.numbers = new Float64Array(length);
  scratch.second = new Float64Array(length);
  scratch.topicOf = new Int32Array(length);
}

/** Writes the offset `field` of every partition, in sorted order: the bigint (or null) each stands for. */
function writeOffsets(rows: FlowRows, field: OffsetField, n: number, sink: ColumnBlockSink): void {
  const { numbers } = scratch;
  const { order } = rows;
  const values = rows.offsets[field];
  for (let i = 0; i < n; i++) numbers[i] = values[order[i]!]!;
  sink.nullableInt64s(numbers, 0, n);
}

/**
 * Writes `lag` (the tail's record count where it has one, else the offset lag) and `lagBasis` ("records" where the
 * record count stands) of every partition.
 */
function writeLags(
  rows: FlowRows, tails: PartitionTails | undefined, n: number, lags: ColumnBlockSink, bases: ColumnBlockSink,
): void {
  if (tails === undefined) {
    writeOffsets(rows, "lag", n, lags);
    bases.repeat("offsets", n);
    return;
  }
  const { numbers, texts } = scratch;
  const { order } = rows;
  const offsetLags = rows.offsets.lag;
  for (let i = 0; i < n; i++) {
    const records = tails.recordLag[i]!;
    const counted = !Number.isNaN(records);
    numbers[i] = counted ? records : offsetLags[order[i]!]!;
    texts[i] = counted ? "records" : "offsets";
  }
  lags.nullableInt64s(numbers, 0, n);
  writeTexts(texts, n, bases);
}

/** Writes whether each partition had transaction markers seen (false without tails): each run of one value at once. */
function writeMarkers(tails: PartitionTails | undefined, n: number, sink: ColumnBlockSink): void {
  if (tails === undefined) {
    sink.repeat(false, n);
    return;
  }
  const { markers } = tails;
  for (let i = 0; i < n; ) {
    const seen = markers[i] === 1;
    let j = i + 1;
    while (j < n && (markers[j] === 1) === seen) j++;
    sink.repeat(seen, j - i);
    i = j;
  }
}

/** An offset sync point's keys as the sync store makes it, and its one shape (ColumnBlockSink.objects). */
const syncShapes = [["upstream", "downstream"]] as const;
/** A shapeOf value no shape has: the row is null. */
const noShape = 255;

/**
 * Writes each partition's newest offset sync (null, or a point of two bigints) as two columns of numbers; a point of
 * other keys, or with an offset beyond 2^53 (none the sync store makes), sends the flow's syncs value by value.
 */
function writeSyncs(rows: FlowRows, n: number, sink: ColumnBlockSink): void {
  const { order, latestSync } = rows;
  const { shapeOf, numbers: upstream, second: downstream } = scratch;
  let points = 0;
  for (let i = 0; i < n; i++) {
    const sync = latestSync[order[i]!]!;
    if (sync === null) {
      shapeOf[i] = noShape;
      continue;
    }
    if (!isPlainPoint(sync)) {
      writeSyncValues(rows, n, sink);
      return;
    }
    upstream[points] = Number(sync.upstream);
    downstream[points++] = Number(sync.downstream);
    shapeOf[i] = 0;
  }
  const [upstreams, downstreams] = sink.objects(syncShapes, shapeOf, 0, n);
  upstreams!.int64s(upstream, 0, points);
  downstreams!.int64s(downstream, 0, points);
}

/** Whether `sync` is written as a plain object of its two keys, both bigints within ±(2^53 − 1), would be. */
function isPlainPoint(sync: OffsetSyncPoint): boolean {
  return isPlainObjectOf(sync, syncShapes[0]) && isExactBigint(sync.upstream) && isExactBigint(sync.downstream);
}

/** writeSyncs value by value: each point as the encoder takes any object, each run of nulls at once. */
function writeSyncValues(rows: FlowRows, n: number, sink: ColumnBlockSink): void {
  const { order, latestSync } = rows;
  for (let i = 0; i < n; ) {
    const sync = latestSync[order[i]!]!;
    if (sync !== null) {
      sink.value(sync);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && latestSync[order[j]!] === null) j++;
    sink.repeat(null, j - i);
    i = j;
  }
}

/** Writes values[0, n) of a column of numbers, NaN for null: each run of nulls, or of numbers, at once. */
function writeNumbers(values: Float64Array, n: number, sink: ColumnBlockSink): void {
  for (let i = 0; i < n; ) {
    const isNull = Number.isNaN(values[i]!);
    let j = i + 1;
    while (j < n && Number.isNaN(values[j]!) === isNull) j++;
    if (isNull) sink.repeat(null, j - i);
    else sink.primitives(values, i, j);
    i = j;
  }
}

/** Writes texts[0, n) of a column of strings or nulls: each run of nulls, or of strings, at once. */
function writeTexts(texts: readonly (string | null)[], n: number, sink: ColumnBlockSink): void {
  for (let i = 0; i < n; ) {
    const isNull = texts[i] === null;
    let j = i + 1;
    while (j < n && (texts[j] === null) === isNull) j++;
    if (isNull) sink.repeat(null, j - i);
    else sink.primitives(texts as ArrayLike<string>, i, j);
    i = j;
  }
}
