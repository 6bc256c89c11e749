/**
 * One flow's partitions read field by field by position, as the made partitions would give them: from buildFlow's
 * rows (flow-rows.ts) without making a partition object, or from the partitions array of a flow made any other way
 * (a recording, a test). The collector's steps after buildFlow (source tails, target density, offset-sync steps,
 * transaction ledgers) read each partition's few fields once a cycle: at 100,000 partitions, making the array for
 * them was 100,000 objects and their bigints a cycle (issue 32).
 */
import { findFlowRows, findFlowTails, type FlowRows, type OffsetField, type PartitionTails } from "./flow-rows";
import { createFlowPartitionKeyer } from "./partition-keys";
import type { Flow, FlowPartition, OffsetSyncPoint } from "./types";

export interface PartitionFields {
  readonly count: number;
  topic(i: number): string;
  targetTopic(i: number): string;
  partition(i: number): number;
  /** The flow partition key (`flowPartitionKey`, interned). */
  key(i: number): string;
  /** An offset; `lag`: the offset lag (`offsetLag`: what buildFlow computed, before the source tail's count). */
  offset(i: number, field: OffsetField): bigint | null;
  /**
   * `offset` as a number (NaN: null): exact for rows (buildFlow throws on an offset beyond 2^53); a partitions
   * array's offsets beyond 2^53 are rounded (readFlowColumns rejects such a flow).
   */
  offsetNumber(i: number, field: OffsetField): number;
  positionSource(i: number): FlowPartition["positionSource"];
  latestSync(i: number): OffsetSyncPoint | null;
  /** The partition's data is known (`unknown` null). */
  isKnown(i: number): boolean;
  transactionMarkersSeen(i: number): boolean;
}

/** The flow's partitions by position, from its rows while its partitions array is not made. */
export function readPartitionFields(flow: Flow): PartitionFields {
  const rows = findFlowRows(flow);
  return rows === undefined ? new ArrayFields(flow.id, flow.partitions) : new RowFields(flow.id, rows, findFlowTails(flow));
}

/** Whether a partition of the flow has its flow partition key in `keys`. */
export function hasPartitionIn(flow: Flow, keys: ReadonlySet<string>): boolean {
  if (keys.size === 0) return false;
  const fields = readPartitionFields(flow);
  for (let i = 0; i < fields.count; i++) if (keys.has(fields.key(i))) return true;
  return false;
}

/** Keys by topic: one keyer per run of a topic's partitions (they are listed together). */
class Keys {
  private topic: string | undefined;
  private keyOf: (partition: number) => string = () => "";

  constructor(private readonly flowId: string) {}

  of(topic: string, partition: number): string {
    if (topic !== this.topic) {
      this.topic = topic;
      this.keyOf = createFlowPartitionKeyer(this.flowId, topic);
    }
    return this.keyOf(partition);
  }
}

class RowFields implements PartitionFields {
  readonly count: number;
  private readonly keys: Keys;

  constructor(
    flowId: string,
    private readonly rows: FlowRows,
    private readonly tails: PartitionTails | undefined,
  ) {
    this.count = rows.order.length;
    this.keys = new Keys(flowId);
  }

  topic(i: number): string {
    return this.rows.topicOf(i);
  }

  targetTopic(i: number): string {
    return this.rows.targetTopicOf(i);
  }

  partition(i: number): number {
    return this.rows.partitionOf(i);
  }

  key(i: number): string {
    return this.keys.of(this.rows.topicOf(i), this.rows.partitionOf(i));
  }

  offset(i: number, field: OffsetField): bigint | null {
    return this.rows.offsetOf(i, field);
  }

  offsetNumber(i: number, field: OffsetField): number {
    return this.rows.offsetNumberOf(i, field);
  }

  positionSource(i: number): FlowPartition["positionSource"] {
    return this.rows.positionSourceOf(i);
  }

  latestSync(i: number): OffsetSyncPoint | null {
    return this.rows.latestSyncOf(i);
  }

  isKnown(i: number): boolean {
    return this.rows.isKnownAt(i);
  }

  transactionMarkersSeen(i: number): boolean {
    return this.tails?.markers[i] === 1;
  }
}

class ArrayFields implements PartitionFields {
  readonly count: number;
  private readonly keys: Keys;

  constructor(
    flowId: string,
    private readonly partitions: readonly FlowPartition[],
  ) {
    this.count = partitions.length;
    this.keys = new Keys(flowId);
  }

  topic(i: number): string {
    return this.partitions[i]!.topic;
  }

  targetTopic(i: number): string {
    return this.partitions[i]!.targetTopic;
  }

  partition(i: number): number {
    return this.partitions[i]!.partition;
  }

  key(i: number): string {
    const p = this.partitions[i]!;
    return this.keys.of(p.topic, p.partition);
  }

  offset(i: number, field: OffsetField): bigint | null {
    const p = this.partitions[i]!;
    return field === "lag" ? p.offsetLag : p[field];
  }

  offsetNumber(i: number, field: OffsetField): number {
    const value = this.offset(i, field);
    return value === null ? Number.NaN : Number(value);
  }

  positionSource(i: number): FlowPartition["positionSource"] {
    return this.partitions[i]!.positionSource;
  }

  latestSync(i: number): OffsetSyncPoint | null {
    return this.partitions[i]!.latestSync;
  }

  isKnown(i: number): boolean {
    return this.partitions[i]!.unknown === null;
  }

  transactionMarkersSeen(i: number): boolean {
    return this.partitions[i]!.transactionMarkersSeen;
  }
}
