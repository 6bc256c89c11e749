/**
 * A model's flows as the encoder takes them: each flow whose partitions were not made (buildFlow's rows,
 * lib/collector/flow-rows.ts) hands them over as ColumnarRows (columnar-source.ts), written from the rows and the
 * source tail's refinement byte for byte as the made partitions would be (FlowRows.makePartition), without a
 * FlowPartition or its bigints being made: at 100,000 partitions that was 100,000 objects and 700,000 bigints a
 * cycle, made only to be split into columns again. Only the encoder reads these.
 */
import {
  changedPartitionKeys, findFlowRows, findFlowTails, partitionKeys, type FlowRows, type OffsetField, type PartitionTails,
} from "@/lib/collector/flow-rows";
import type { Flow } from "@/lib/collector/types";
import { type ColumnarRows, type ColumnSink, columnarRows } from "./columnar-source";

/** `flows`, each one with rows copied with its `partitions` (in its place among the keys) the rows (for encodeColumnar). */
export function serveFlowRows(flows: readonly Flow[]): readonly unknown[] {
  return flows.map(serveFlow);
}

/** The flow, or a copy whose `partitions` is its rows. */
function serveFlow(flow: Flow): unknown {
  const rows = findFlowRows(flow);
  if (rows === undefined) return flow;
  const served: Record<string, unknown> = {};
  const partitions = new PartitionRows(rows, findFlowTails(flow));
  // Reading `partitions` would make them: every other property is copied.
  for (const key of Object.keys(flow)) served[key] = key === "partitions" ? partitions : flow[key as keyof Flow];
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

  writeRows(sink: ColumnSink): void {
    for (let i = 0; i < this.rows.order.length; i++) {
      // An offset beyond 2^53 is held apart as a bigint: such a flow is rare (buildFlow refuses it), made row by row.
      if (this.rows.beyond) sink.value(this.rows.makePartition(i, this.tails));
      else writePartition(this.rows, this.tails, i, sink);
    }
  }

  listRows(): readonly unknown[] {
    return this.rows.makePartitions(this.tails);
  }
}

/** Writes the partition at sorted position `i` as FlowRows.makePartition makes it (no offset beyond 2^53). */
function writePartition(rows: FlowRows, tails: PartitionTails | undefined, i: number, sink: ColumnSink): void {
  const topic = rows.rowTopicOf(i);
  const rare = rows.rareFieldsOf(i);
  const changed = rare?.copierChange !== undefined;
  const columns = sink.object(changed ? changedPartitionKeys : partitionKeys);
  columns[0]!.value(topic.topic);
  columns[1]!.value(rows.partitionOf(i));
  columns[2]!.value(topic.targetTopic);
  columns[3]!.value(rows.connectorOf(i));
  if (changed) columns[4]!.value(rare.copierChange);
  // The properties after the connector, one place later in a partition with a copier change.
  const k = changed ? 5 : 4;
  columns[k]!.value(topic.sourceTopicId);
  writeOffset(rows, i, "sourceLogStart", columns[k + 1]!);
  writeOffset(rows, i, "sourceLogEnd", columns[k + 2]!);
  const epoch = rows.leaderEpochOf(i);
  columns[k + 3]!.value(Number.isNaN(epoch) ? null : epoch);
  writeOffset(rows, i, "mm2Position", columns[k + 4]!);
  writeOffset(rows, i, "committedPosition", columns[k + 5]!);
  columns[k + 6]!.value(rows.positionSourceOf(i));
  writeOffset(rows, i, "targetLogStart", columns[k + 7]!);
  writeOffset(rows, i, "targetLogEnd", columns[k + 8]!);
  const recordLag = tails === undefined ? Number.NaN : tails.recordLag[i]!;
  if (Number.isNaN(recordLag)) writeOffset(rows, i, "lag", columns[k + 9]!);
  else columns[k + 9]!.int64(recordLag);
  writeOffset(rows, i, "lag", columns[k + 10]!);
  columns[k + 11]!.value(Number.isNaN(recordLag) ? "offsets" : "records");
  columns[k + 12]!.value(tails?.markers[i] === 1);
  columns[k + 13]!.value(rare?.targetDensityIssue ?? null);
  columns[k + 14]!.value(rows.latestSyncOf(i));
  const oldest = tails === undefined ? Number.NaN : tails.oldest[i]!;
  columns[k + 15]!.value(Number.isNaN(oldest) ? null : oldest);
  columns[k + 16]!.value(rare?.unknown ?? null);
}

/** An offset as the bigint (or null) it stands for: exact, as the rows hold none beyond 2^53 here. */
function writeOffset(rows: FlowRows, i: number, field: OffsetField, sink: ColumnSink): void {
  const n = rows.offsetNumberOf(i, field);
  if (Number.isNaN(n)) sink.value(null);
  else sink.int64(n);
}
