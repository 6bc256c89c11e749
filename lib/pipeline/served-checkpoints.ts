/**
 * A flow's checkpoints (a point per group partition MM2 checkpointed: 190,000 at 100,000 partitions) as the encoder
 * takes them: handed over as ColumnarRows (columnar-source.ts) and written a column at a time (ColumnBlockSink), the
 * same bytes as the points written one by one. As objects, the encoder split every point into six columns again,
 * a value, a kind and a lookup at a time, and a full garbage collection often landed on it. Only the encoder reads
 * these (served-flows.ts hands them over).
 */
import type { CheckpointPoint } from "@/lib/collector/types";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "./columnar-source";
import { isExactBigint, isPlainObjectOf } from "./plain-shapes";

/** A flow's checkpoints as rows the encoder writes a column at a time (each point as it is where it cannot). */
export class CheckpointRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(private readonly points: readonly CheckpointPoint[]) {}

  get length(): number {
    return this.points.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    if (!writeCheckpoints(this.points, sink)) for (const point of this.points) sink.value(point);
  }

  listRows(): readonly unknown[] {
    return this.points;
  }
}

/** CheckpointPoint's keys in the collector's order (flow-readings.ts): the one shape written as columns. */
const pointKeys = ["group", "topic", "partition", "upstream", "downstream", "at"] as const;
const shapes = [pointKeys];

/** Scratch columns, grown to the most points a flow had: the encoder copies what it is handed. */
const scratch = {
  shapeOf: new Uint8Array(0), partitions: new Float64Array(0), upstreams: new Float64Array(0),
  downstreams: new Float64Array(0), ats: new Float64Array(0), groups: [] as string[], topics: [] as string[],
};

/**
 * Writes `points` a column at a time, if every one is a plain object of exactly pointKeys (in that order) with values
 * of their declared types and offsets within ±(2^53 − 1): else writes nothing and returns false (the caller writes
 * the points one by one, as the encoder takes any object, so an odd point is written as it is).
 */
function writeCheckpoints(points: readonly CheckpointPoint[], sink: ColumnBlockSink): boolean {
  const n = points.length;
  if (n === 0) return true;
  grow(n);
  const { shapeOf, partitions, upstreams, downstreams, ats, groups, topics } = scratch;
  for (let i = 0; i < n; i++) {
    const point = points[i]!;
    if (!isPlainPoint(point)) {
      clear(n);
      return false;
    }
    groups[i] = point.group;
    topics[i] = point.topic;
    partitions[i] = point.partition;
    upstreams[i] = Number(point.upstream);
    downstreams[i] = Number(point.downstream);
    ats[i] = point.at;
  }
  shapeOf.fill(0, 0, n);
  const [group, topic, partition, upstream, downstream, at] = sink.objects(shapes, shapeOf, 0, n);
  group!.primitives(groups, 0, n);
  topic!.primitives(topics, 0, n);
  partition!.primitives(partitions, 0, n);
  upstream!.int64s(upstreams, 0, n);
  downstream!.int64s(downstreams, 0, n);
  at!.primitives(ats, 0, n);
  clear(n);
  return true;
}

/**
 * Whether `point` is written as the columns would write it: a plain object whose own enumerable keys are pointKeys in
 * order (an extra, missing or undefined key changes the object's shape), strings, numbers, and bigints held exactly
 * as numbers (the encoder writes a column of bigints as numbers while every one is, writeCheckpoints' int64s).
 */
function isPlainPoint(point: CheckpointPoint): boolean {
  if (!isPlainObjectOf(point, pointKeys)) return false;
  const { group, topic, partition, upstream, downstream, at } = point as Record<keyof CheckpointPoint, unknown>;
  return typeof group === "string" && typeof topic === "string" && typeof partition === "number" &&
    typeof at === "number" && isExactBigint(upstream) && isExactBigint(downstream);
}

/** Grows the scratch columns to at least `n` rows. */
function grow(n: number): void {
  if (scratch.shapeOf.length >= n) return;
  const length = Math.max(n, scratch.shapeOf.length * 2);
  scratch.shapeOf = new Uint8Array(length);
  scratch.partitions = new Float64Array(length);
  scratch.upstreams = new Float64Array(length);
  scratch.downstreams = new Float64Array(length);
  scratch.ats = new Float64Array(length);
}

/** Lets go of the first `n` strings held: they are the model's, not the encoder's to keep past the flow. */
function clear(n: number): void {
  scratch.groups.fill("", 0, n);
  scratch.topics.fill("", 0, n);
}
