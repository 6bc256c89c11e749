import { isSameSlots } from "@/lib/collector/flow-columns";
import { findFlowRows, readFlowPartition } from "@/lib/collector/flow-rows";
import { type Flow, type FlowPartition, flowPartitionKey } from "@/lib/collector/types";


/**
 * Dense integer indexes of a flow's partitions, stable across cycles: a partition keeps the index it got when first
 * seen for as long as the flow is translated (a partition added later gets the next one; none is reused), so anything
 * kept per partition between cycles is an array slot, not a map entry under a key string.
 */
export class FlowPartitionIndex {
  private readonly byTopic = new Map<string, Map<number, number>>();
  private readonly topics: string[] = [];
  private readonly numbers: number[] = [];
  private readonly keys: string[] = [];

  constructor(private readonly flowId: string) {}

  /** How many indexes were given out. */
  get size(): number {
    return this.topics.length;
  }

  /** The partition's index, or −1 when it never had one. */
  indexOf(topic: string, partition: number): number {
    return this.byTopic.get(topic)?.get(partition) ?? -1;
  }

  /** The partition's index, given now when it has none yet. */
  ensure(topic: string, partition: number): number {
    let byNumber = this.byTopic.get(topic);
    if (byNumber === undefined) this.byTopic.set(topic, (byNumber = new Map()));
    const known = byNumber.get(partition);
    if (known !== undefined) return known;
    const index = this.topics.length;
    byNumber.set(partition, index);
    this.topics.push(topic);
    this.numbers.push(partition);
    this.keys.push(flowPartitionKey(this.flowId, topic, partition));
    return index;
  }

  /** The collector's history key of the partition at `index` (flowPartitionKey). */
  keyAt(index: number): string {
    return this.keys[index]!;
  }
}

/** A flow's partitions of one cycle by dense index (a later duplicate wins, as in a Map), and their topics. */
export interface CyclePartitions {
  /** The partition at a dense index (the same object each time), or undefined when none is there this cycle. */
  at(index: number): FlowPartition | undefined;
  /** Whether a partition is at a dense index this cycle (at() would give one), without making it. */
  has(index: number): boolean;
  /** The remote topic of the partition at a dense index this cycle (at() must give one), without making it. */
  targetTopicAt(index: number): string;
  topics: ReadonlySet<string>;
}

/**
 * Places each cycle's flow partitions at their dense indexes. The collector lists them in the same order cycle after
 * cycle, so a position that names the partition it named last cycle takes last cycle's index without a lookup.
 */
export class FlowPartitionPlacer {
  readonly index: FlowPartitionIndex;
  private topics: string[] = [];
  private numbers: number[] = [];
  private indexes: number[] = [];
  private topicSet: ReadonlySet<string> = new Set();
  /** The flow columns' slots of the last `place` (lib/collector/flow-columns.ts), and their generation. */
  private placedSlots: PlacedSlots | null = null;

  constructor(flowId: string) {
    this.index = new FlowPartitionIndex(flowId);
  }

  /**
   * This cycle's partitions of `flow` by dense index. `slots`: the flow columns' slot of each position; when they are
   * last cycle's (same generation, same slot at every position), each position names the partition it named then,
   * and no partition is read. A partition is read (made from the collector's rows, flow-rows.ts, when the flow's
   * array was not made) only when asked for: groups commit offsets for a few of a flow's partitions.
   */
  place(flow: Flow, slots?: PlacedSlots): CyclePartitions {
    const held = this.placedSlots;
    this.placedSlots = slots ?? null;
    const sameSlots = slots !== undefined && held !== null && held.generation === slots.generation && isSameSlots(held.slotAt, slots.slotAt);
    if (!sameSlots) this.placeMoved(flow);
    const positionOf = new Int32Array(this.index.size).fill(-1);
    for (let i = 0; i < this.indexes.length; i++) positionOf[this.indexes[i]!] = i;
    const made = new Array<FlowPartition | undefined>(this.index.size);
    const rows = findFlowRows(flow);
    const positionAt = (index: number) => (index >= 0 && index < positionOf.length ? positionOf[index]! : -1);
    return {
      at: (index) => {
        const position = positionAt(index);
        if (position < 0) return undefined;
        return (made[index] ??= readFlowPartition(flow, position));
      },
      has: (index) => positionAt(index) >= 0,
      targetTopicAt: (index) => {
        const position = positionAt(index);
        return rows === undefined ? flow.partitions[position]!.targetTopic : rows.targetTopicOf(position);
      },
      topics: this.topicSet,
    };
  }

  /** Gives each position of the flow its dense index (kept for the next cycle). */
  private placeMoved(flow: Flow): void {
    const rows = findFlowRows(flow);
    const partitions = rows === undefined ? flow.partitions : null;
    const count = partitions?.length ?? rows!.order.length;
    let moved = count !== this.topics.length;
    for (let i = 0; i < count; i++) {
      const topic = partitions === null ? rows!.topicOf(i) : partitions[i]!.topic;
      const partition = partitions === null ? rows!.partitionOf(i) : partitions[i]!.partition;
      let index = this.indexes[i];
      if (index === undefined || this.topics[i] !== topic || this.numbers[i] !== partition) {
        index = this.index.ensure(topic, partition);
        this.topics[i] = topic;
        this.numbers[i] = partition;
        this.indexes[i] = index;
        moved = true;
      }
    }
    if (moved) {
      this.topics.length = this.numbers.length = this.indexes.length = count;
      this.topicSet = new Set(this.topics);
    }
  }

  /**
   * One of the flow's columns (lib/collector/flow-columns.ts: by its slot, `slotAt` per position) by dense index, for
   * the partitions of the last `place`: a later duplicate wins, as the columns' value is the last one's.
   */
  readColumn(slotAt: Int32Array, column: Float64Array): Float64Array {
    const byIndex = new Float64Array(this.index.size).fill(Number.NaN);
    for (let i = 0; i < this.indexes.length; i++) byIndex[this.indexes[i]!] = column[slotAt[i]!]!;
    return byIndex;
  }

  /** readColumn for a column of bytes (FlowColumns.flags); 0 where no partition of the last `place` is. */
  readByteColumn(slotAt: Int32Array, column: Uint8Array): Uint8Array {
    const byIndex = new Uint8Array(this.index.size);
    for (let i = 0; i < this.indexes.length; i++) byIndex[this.indexes[i]!] = column[slotAt[i]!]!;
    return byIndex;
  }
}

/** A flow's columns' slot of each listed partition (FlowColumns.slotAt), valid within their generation. */
export interface PlacedSlots {
  generation: number;
  slotAt: Int32Array;
}

