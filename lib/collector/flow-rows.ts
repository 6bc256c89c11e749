/**
 * What buildFlow read of each partition of one flow, held in typed arrays by listed position (the order the source
 * lists them) instead of one FlowPartition object per partition: at 100,000 partitions those objects and their
 * bigints lived the whole cycle, were promoted, and made the full collections that cost most of a cycle (issue 32).
 * A flow buildFlow makes has its `partitions` array made from these rows the first time someone reads it
 * (definePartitionsOnDemand), field by field what buildFlow built before; the hot readers use the rows' accessors
 * and the flow's columns (flow-columns.ts) and never make it. The source tail read's refinement of a flow
 * (unreplicated-tail.ts) is a PartitionTails kept beside the rows of its copy of the flow: the rows stay buildFlow's.
 */
import type { CopierChange, Flow, FlowPartition, OffsetSyncPoint, UnknownData } from "./types";

/** A member topic of the build: its name, remote name (interned by buildFlow) and topic ID. */
export type RowTopic = Pick<FlowPartition, "topic" | "targetTopic" | "sourceTopicId">;

/** The offsets a partition holds as bigints, in FlowPartition's field order. */
export const offsetFields = [
  "sourceLogStart",
  "sourceLogEnd",
  "mm2Position",
  "committedPosition",
  "targetLogStart",
  "targetLogEnd",
  "lag",
] as const;

export type OffsetField = (typeof offsetFields)[number];

/** One column per offset field (in offsetFields' order), `length` values each, every value `fill`. */
export function createOffsetColumns(length: number, fill: number): Record<OffsetField, Float64Array> {
  const columns = offsetFields.map((field) => [field, new Float64Array(length).fill(fill)]);
  return Object.fromEntries(columns) as Record<OffsetField, Float64Array>;
}

const positionSources = [null, "committed", "offset-sync"] as const;

/** What one listed partition has besides its offsets (FlowRows.put). */
export interface RowReadings {
  partition: number;
  sourceConnector: string | null;
  sourceLeaderEpoch: number | null;
  positionSource: FlowPartition["positionSource"];
  latestSync: OffsetSyncPoint | null;
  copierChange: CopierChange | null | undefined;
  targetDensityIssue: string | null;
  unknown: UnknownData | null;
  /** Its FlowFlag bits (flow-columns.ts). */
  flags: number;
}

/** Fields of a few partitions only, by listed position. */
export interface RareFields {
  copierChange?: CopierChange;
  targetDensityIssue?: string;
  unknown?: UnknownData;
}

/** One flow's partitions of one build, by listed position; `order` maps sorted positions to listed ones. */
export class FlowRows {
  /** Per listed position: the index of its topic in `topics`. */
  readonly topicAt: Int32Array;
  readonly partition: Float64Array;
  /** Per offset field, per listed position: the offset as a number (NaN: null); exact below 2^53 (`beyond`). */
  readonly offsets: Record<OffsetField, Float64Array>;
  readonly leaderEpoch: Float64Array;
  /** Per listed position: the index of its source connector in `connectors`, or −1. */
  readonly connectorAt: Int32Array;
  /** Per listed position: index in positionSources. */
  readonly positionSource: Uint8Array;
  /** Per listed position: FlowFlag bits (flow-columns.ts), as RowReadings gives them. */
  readonly flags: Uint8Array;
  /** The newest offset sync each partition was built with (the store's point object, shared). */
  readonly latestSync: (OffsetSyncPoint | null)[];
  readonly topics: RowTopic[] = [];
  private readonly connectors: string[] = [];
  private readonly connectorIndex = new Map<string, number>();
  private readonly rare = new Map<number, RareFields>();
  /** Offsets numbers cannot hold exactly, by `position × 8 + field`: only to name them in the error. */
  private readonly exact = new Map<number, bigint>();
  /** Some offset is beyond 2^53 (buildFlow then throws, naming it). */
  beyond = false;
  /** Per sorted position: its listed position (set once sorted). */
  order: Int32Array = new Int32Array(0);

  constructor(readonly length: number) {
    this.topicAt = new Int32Array(length);
    this.partition = new Float64Array(length);
    this.offsets = createOffsetColumns(length, 0);
    this.leaderEpoch = new Float64Array(length);
    this.connectorAt = new Int32Array(length);
    this.positionSource = new Uint8Array(length);
    this.flags = new Uint8Array(length);
    this.latestSync = new Array<OffsetSyncPoint | null>(length).fill(null);
  }

  /** Records the partition listed at `at` of topic `topic` (an index in `topics`), without its offsets. */
  put(at: number, topic: number, r: RowReadings): void {
    this.topicAt[at] = topic;
    this.partition[at] = r.partition;
    this.leaderEpoch[at] = r.sourceLeaderEpoch ?? Number.NaN;
    this.connectorAt[at] = r.sourceConnector === null ? -1 : this.numberConnector(r.sourceConnector);
    this.positionSource[at] = positionSources.indexOf(r.positionSource);
    this.latestSync[at] = r.latestSync;
    this.flags[at] = r.flags;
    if (!r.copierChange && r.targetDensityIssue === null && r.unknown === null) return;
    const rare: RareFields = {};
    if (r.copierChange) rare.copierChange = r.copierChange;
    if (r.targetDensityIssue !== null) rare.targetDensityIssue = r.targetDensityIssue;
    if (r.unknown !== null) rare.unknown = r.unknown;
    this.rare.set(at, rare);
  }

  /** Records one offset of the partition listed at `at`. */
  putOffset(at: number, field: OffsetField, value: bigint | null): void {
    if (value === null) {
      this.offsets[field][at] = Number.NaN;
      return;
    }
    const n = Number(value);
    if (n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER) {
      this.beyond = true;
      this.exact.set(at * 8 + offsetFields.indexOf(field), value);
    }
    this.offsets[field][at] = n;
  }

  /** Records one offset of the partition listed at `at` as a number within ±2^53 (NaN: null; partition-position.ts). */
  putExactOffset(at: number, field: OffsetField, value: number): void {
    this.offsets[field][at] = value;
  }

  /** Whether the partition listed at `at` has known data (`unknown` null). */
  isKnown(at: number): boolean {
    return this.rare.get(at)?.unknown === undefined;
  }

  /** The topic name of the partition at sorted position `i`. */
  topicOf(i: number): string {
    return this.topics[this.topicAt[this.order[i]!]!]!.topic;
  }

  /** The remote topic name of the partition at sorted position `i`. */
  targetTopicOf(i: number): string {
    return this.topics[this.topicAt[this.order[i]!]!]!.targetTopic;
  }

  /** The topic of the partition at sorted position `i`. */
  rowTopicOf(i: number): RowTopic {
    return this.topics[this.topicAt[this.order[i]!]!]!;
  }

  /** The copying connector of the partition at sorted position `i` (null: dedicated-mode MM2). */
  connectorOf(i: number): string | null {
    const n = this.connectorAt[this.order[i]!]!;
    return n < 0 ? null : this.connectors[n]!;
  }

  /** The partition number of the partition at sorted position `i`. */
  partitionOf(i: number): number {
    return this.partition[this.order[i]!]!;
  }

  /** The partition at sorted position `i`, as buildFlow built it and `tails` refined it (a new object). */
  makePartition(i: number, tails?: PartitionTails): FlowPartition {
    const at = this.order[i]!;
    const topic = this.topics[this.topicAt[at]!]!;
    const connector = this.connectorAt[at]!;
    const epoch = this.leaderEpoch[at]!;
    const rare = this.rare.get(at);
    const lag = this.readOffset(at, "lag");
    const recordLag = tails === undefined ? Number.NaN : tails.recordLag[i]!;
    const oldest = tails === undefined ? Number.NaN : tails.oldest[i]!;
    // A literal without a spread, in the field order of the JSON (recordings and digests compare it).
    const made: FlowPartition = {
      topic: topic.topic,
      partition: this.partition[at]!,
      targetTopic: topic.targetTopic,
      sourceConnector: connector < 0 ? null : this.connectors[connector]!,
      sourceTopicId: topic.sourceTopicId,
      sourceLogStart: this.readOffset(at, "sourceLogStart"),
      sourceLogEnd: this.readOffset(at, "sourceLogEnd"),
      sourceLeaderEpoch: Number.isNaN(epoch) ? null : epoch,
      mm2Position: this.readOffset(at, "mm2Position"),
      committedPosition: this.readOffset(at, "committedPosition"),
      positionSource: positionSources[this.positionSource[at]!]!,
      targetLogStart: this.readOffset(at, "targetLogStart"),
      targetLogEnd: this.readOffset(at, "targetLogEnd"),
      lag: Number.isNaN(recordLag) ? lag : BigInt(recordLag),
      offsetLag: lag,
      lagBasis: Number.isNaN(recordLag) ? "offsets" : "records",
      transactionMarkersSeen: tails?.markers[i] === 1,
      targetDensityIssue: rare?.targetDensityIssue ?? null,
      latestSync: this.latestSync[at]!,
      oldestUnreplicatedTimestamp: Number.isNaN(oldest) ? null : oldest,
      unknown: rare?.unknown ?? null,
    };
    return rare?.copierChange === undefined ? made : withCopierChange(made, rare.copierChange);
  }

  /** Every partition in sorted order (new objects). */
  makePartitions(tails?: PartitionTails): FlowPartition[] {
    const partitions: FlowPartition[] = [];
    for (let i = 0; i < this.order.length; i++) partitions.push(this.makePartition(i, tails));
    return partitions;
  }

  /** The offset `field` of the partition at sorted position `i` as a number (NaN: null; exact, `beyond` aside). */
  offsetNumberOf(i: number, field: OffsetField): number {
    return this.offsets[field][this.order[i]!]!;
  }

  /** The source leader epoch of the partition at sorted position `i` (NaN: null). */
  leaderEpochOf(i: number): number {
    return this.leaderEpoch[this.order[i]!]!;
  }

  /** Whether some partition has a copier change, a target density issue or unknown data (rareFieldsOf). */
  hasRareFields(): boolean {
    return this.rare.size > 0;
  }

  /** The copier change, target density issue and unknown data of the partition at sorted position `i`, if any. */
  rareFieldsOf(i: number): Readonly<RareFields> | undefined {
    return this.rare.get(this.order[i]!);
  }

  /** The offset `field` of the partition at sorted position `i`. */
  offsetOf(i: number, field: OffsetField): bigint | null {
    return this.readOffset(this.order[i]!, field);
  }

  /** Which reading gave MM2's position of the partition at sorted position `i`. */
  positionSourceOf(i: number): FlowPartition["positionSource"] {
    return positionSources[this.positionSource[this.order[i]!]!]!;
  }

  /** The newest offset sync the partition at sorted position `i` was built with. */
  latestSyncOf(i: number): OffsetSyncPoint | null {
    return this.latestSync[this.order[i]!]!;
  }

  /** Whether the partition at sorted position `i` has known data (`unknown` null). */
  isKnownAt(i: number): boolean {
    return this.isKnown(this.order[i]!);
  }

  /**
   * The partitions' lag summed (as summarizeFlowTotals sums the made partitions': numbers while every partial sum
   * is exact, else bigints), with `tails`' record counts where they replace the offset lag.
   */
  sumLag(tails?: PartitionTails): bigint {
    const lags = this.offsets.lag;
    let sum = 0;
    let exact = true;
    for (let i = 0; i < this.order.length; i++) {
      const recordLag = tails === undefined ? Number.NaN : tails.recordLag[i]!;
      const lag = Number.isNaN(recordLag) ? lags[this.order[i]!]! : recordLag;
      if (Number.isNaN(lag) || lag === 0) continue;
      sum += lag;
      exact &&= sum <= Number.MAX_SAFE_INTEGER && sum >= -Number.MAX_SAFE_INTEGER;
    }
    if (exact) return BigInt(sum);
    let big = 0n;
    for (let i = 0; i < this.order.length; i++) {
      const recordLag = tails === undefined ? Number.NaN : tails.recordLag[i]!;
      const lag = Number.isNaN(recordLag) ? this.offsetOf(i, "lag") : BigInt(recordLag);
      if (lag !== null) big += lag;
    }
    return big;
  }

  private readOffset(at: number, field: OffsetField): bigint | null {
    const n = this.offsets[field][at]!;
    if (Number.isNaN(n)) return null;
    return this.beyond ? (this.exact.get(at * 8 + offsetFields.indexOf(field)) ?? BigInt(n)) : BigInt(n);
  }

  private numberConnector(name: string): number {
    let n = this.connectorIndex.get(name);
    if (n === undefined) {
      n = this.connectors.length;
      this.connectors.push(name);
      this.connectorIndex.set(name, n);
    }
    return n;
  }
}

/**
 * What the source tail read refined of one flow's partitions, by sorted position (unreplicated-tail.ts
 * applySourceTails): the made partition's `lag`/`lagBasis`, `oldestUnreplicatedTimestamp` and
 * `transactionMarkersSeen`. Kept beside the rows of the refined copy of the flow, which stay buildFlow's.
 */
export class PartitionTails {
  /** Per position: 1 when transaction markers were seen (`transactionMarkersSeen`). */
  readonly markers: Uint8Array;
  /** Per position: the lag in data records (`lagBasis` "records"), or NaN where the offset lag stands. */
  readonly recordLag: Float64Array;
  /** Per position: `oldestUnreplicatedTimestamp` (epoch ms), or NaN for null. */
  readonly oldest: Float64Array;

  constructor(readonly length: number) {
    this.markers = new Uint8Array(length);
    this.recordLag = new Float64Array(length).fill(Number.NaN);
    this.oldest = new Float64Array(length).fill(Number.NaN);
  }

  /** A copy whose markers are cleared (each refinement sets them anew) and whose record lags and timestamps stay. */
  carry(): PartitionTails {
    const copy = new PartitionTails(this.length);
    copy.recordLag.set(this.recordLag);
    copy.oldest.set(this.oldest);
    return copy;
  }
}

/** The partition with the connector change that moved it, listed after its connector (the field order of the JSON). */
/**
 * The property names, in order, of a partition makePartition makes (its literal's order), for writers of the same
 * shape without the object (the publication's encoder keys shapes by these arrays).
 */
export const partitionKeys: readonly string[] = [
  "topic", "partition", "targetTopic", "sourceConnector", "sourceTopicId", "sourceLogStart", "sourceLogEnd",
  "sourceLeaderEpoch", "mm2Position", "committedPosition", "positionSource", "targetLogStart", "targetLogEnd", "lag",
  "offsetLag", "lagBasis", "transactionMarkersSeen", "targetDensityIssue", "latestSync", "oldestUnreplicatedTimestamp",
  "unknown",
];
/** A partition a connector change moved (withCopierChange): `copierChange` after its connector. */
export const changedPartitionKeys: readonly string[] = [...partitionKeys.slice(0, 4), "copierChange", ...partitionKeys.slice(4)];

function withCopierChange(built: FlowPartition, copierChange: CopierChange): FlowPartition {
  const { topic, partition, targetTopic, sourceConnector, ...rest } = built;
  return { topic, partition, targetTopic, sourceConnector, copierChange, ...rest };
}

/** The rows of each flow whose `partitions` were not made yet. */
const rowsByFlow = new WeakMap<Flow, FlowRows>();
/** The source tail's refinement of those of them that are a refined copy (unreplicated-tail.ts). */
const tailsByFlow = new WeakMap<Flow, PartitionTails>();
let partitionArraysMade = 0;

/**
 * Makes `flow.partitions` from `rows` (refined by `tails`) when first read (then a plain array property, in the same
 * place among the flow's keys: JSON.stringify, a spread and structuredClone see the flow as before), then given to
 * `onMade`. A write replaces it.
 */
export function definePartitionsOnDemand(
  flow: Flow,
  rows: FlowRows,
  onMade: (partitions: FlowPartition[]) => void,
  tails?: PartitionTails,
): void {
  rowsByFlow.set(flow, rows);
  if (tails !== undefined) tailsByFlow.set(flow, tails);
  Object.defineProperty(flow, "partitions", {
    configurable: true,
    enumerable: true,
    get(this: Flow): FlowPartition[] {
      partitionArraysMade++;
      const partitions = rows.makePartitions(tails);
      settlePartitions(this, partitions);
      onMade(partitions);
      return partitions;
    },
    set(this: Flow, partitions: FlowPartition[]) {
      settlePartitions(this, partitions);
    },
  });
}

/**
 * A copy of the flow, its keys in order, whose `partitions` (when the flow's were not made) are made on demand from
 * the same rows and tails: a copy made to change another property (a spread would make them) leaves them unmade.
 */
export function copyFlowKeepingRows(flow: Flow): Flow {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(flow)) as Flow;
  const rows = rowsByFlow.get(flow);
  if (rows !== undefined) definePartitionsOnDemand(copy, rows, () => undefined, tailsByFlow.get(flow));
  return copy;
}

function settlePartitions(flow: Flow, partitions: FlowPartition[]): void {
  rowsByFlow.delete(flow);
  tailsByFlow.delete(flow);
  Object.defineProperty(flow, "partitions", { value: partitions, writable: true, enumerable: true, configurable: true });
}

/** The rows of a flow buildFlow made whose `partitions` nobody read yet, else undefined (read `flow.partitions`). */
export function findFlowRows(flow: Flow): FlowRows | undefined {
  return rowsByFlow.get(flow);
}

/** The source tail's refinement of a flow with rows (findFlowRows), else undefined (none, or read `flow.partitions`). */
export function findFlowTails(flow: Flow): PartitionTails | undefined {
  return tailsByFlow.get(flow);
}

/**
 * The partition at position `i` of the flow: made from its rows when its array was not made (evidence for one
 * finding), else the array's.
 */
export function readFlowPartition(flow: Flow, i: number): FlowPartition {
  const rows = rowsByFlow.get(flow);
  return rows === undefined ? flow.partitions[i]! : rows.makePartition(i, tailsByFlow.get(flow));
}

/** How many partitions the flow lists, without making its partitions array. */
export function countFlowPartitions(flow: Flow): number {
  return rowsByFlow.get(flow)?.order.length ?? flow.partitions.length;
}

/**
 * The topic, remote topic and topic ID of the partition at position `i` (the rules that ask once per topic run):
 * the rows' shared one, or the partition itself.
 */
export function readPartitionTopic(flow: Flow, i: number): RowTopic {
  const rows = rowsByFlow.get(flow);
  return rows === undefined ? flow.partitions[i]! : rows.rowTopicOf(i);
}

/** The partition's `sourceConnector` at position `i`, without making the partitions array. */
export function readSourceConnector(flow: Flow, i: number): string | null {
  const rows = rowsByFlow.get(flow);
  return rows === undefined ? flow.partitions[i]!.sourceConnector : rows.connectorOf(i);
}

/** The partition number of the partition at position `i`. */
export function readPartitionNumber(flow: Flow, i: number): number {
  const rows = rowsByFlow.get(flow);
  return rows === undefined ? flow.partitions[i]!.partition : rows.partitionOf(i);
}

/**
 * The partition's `oldestUnreplicatedTimestamp`: for a flow with rows, what the source tail read found (null in
 * buildFlow's rows; unreplicated-tail.ts sets it on a refined copy), else the partition's.
 */
export function readOldestUnreplicatedTimestamp(flow: Flow, i: number): number | null {
  if (!rowsByFlow.has(flow)) return flow.partitions[i]!.oldestUnreplicatedTimestamp;
  const oldest = tailsByFlow.get(flow)?.oldest[i] ?? Number.NaN;
  return Number.isNaN(oldest) ? null : oldest;
}

/** How many partitions arrays were made from rows since the process started (tests count the hot path's). */
export function countPartitionArraysMade(): number {
  return partitionArraysMade;
}
