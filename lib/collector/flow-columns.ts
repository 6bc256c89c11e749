/**
 * The columnar view of a flow's partitions: each partition has a dense integer slot, stable across cycles (a
 * partition added takes a new slot, the others keep theirs), and its offsets sit in Float64Array columns by slot
 * (NaN: unknown). Detectors compare this cycle with the last one slot by slot, and scan offsets without touching
 * the partition objects or their bigints (issue 32: at 100,000 partitions every per-partition object a cycle
 * makes or hashes is garbage and GC was a fifth of the profile).
 *
 * Offsets are exact as float64 below 2^53 (Number.MAX_SAFE_INTEGER); Kafka's offsets are int64, so each one is
 * checked once, where the columns are filled, and a partition beyond it is named in the error.
 * The columns are kept beside the partitions array (a WeakMap), not in the Flow: the Snapshot stays the JSON the
 * collector records and publishes, and a flow built any other way (a recording, a test) gets its columns on
 * first use from its partitions.
 */
import { createOffsetColumns, type FlowRows, offsetFields } from "./flow-rows";
import { type Flow, flowPartitionKey, type FlowPartition } from "./types";

/** One flow's columns for one cycle. Columns are by slot; `slots` of them (slots not in this cycle hold NaN). */
export interface FlowColumns {
  flowId: string;
  /** The slot index they were filled against (a compaction of the index makes older columns unusable). */
  generation: number;
  slots: number;
  /** Per position in the partitions array: its slot. */
  slotAt: Int32Array;
  /** A slot is at more than one position (a partition listed twice): its columns hold the last one's values. */
  duplicates: boolean;
  /** Per slot: the last position holding it whose data is known (`unknown` null), or −1. */
  knownPositionOf: Int32Array;
  /** Per slot: the flow partition key (`<flow>|<topic>|<partition>`, interned), shared by every cycle. */
  keys: readonly (string | undefined)[];
  sourceLogStart: Float64Array;
  sourceLogEnd: Float64Array;
  mm2Position: Float64Array;
  committedPosition: Float64Array;
  targetLogStart: Float64Array;
  targetLogEnd: Float64Array;
  lag: Float64Array;
  /**
   * The source topic ID as a number per slot (−1: unknown): equal numbers are equal IDs, within one flow and slot
   * generation (the two snapshots a cycle's detectors compare share one).
   */
  sourceTopicId: Int32Array;
  /** Per slot: FlowFlag bits (what a detector asks of a partition before it reads the partition object). */
  flags: Uint8Array;
  /**
   * The positions where a run of one topic (topic and target topic) starts, in order: a topic's partitions are
   * listed together, so a rule asking per topic reads one partition of each run, not every partition.
   */
  topicRunStarts: Int32Array;
}

/** FlowColumns.flags bits. */
export const FlowFlag = {
  /** `copierChange` is set: the topic moved to another source connector (held 10 minutes). */
  COPIER_CHANGE: 1,
  /** `targetDensityIssue` is set: the target's log end does not count MM2's copies. */
  TARGET_NOT_DENSE: 2,
} as const;

/** One flow's stable slots: kept across cycles for the flow's id. */
interface SlotIndex {
  generation: number;
  /** Per topic, the slot of each partition number (holes: −1 or absent). */
  byTopic: Map<string, number[]>;
  keys: (string | undefined)[];
  /** Source topic IDs seen in this generation, numbered in order (FlowColumns.sourceTopicId). */
  topicIds: Map<string, number>;
}

/** Slots of removed partitions are reclaimed once they outnumber the live ones by this much (a new generation). */
const maxIdleSlots = 4096;

const indexes = new Map<string, SlotIndex>();
/**
 * Every live slot of every flow by flow partition key, as `generation × 2^31 + slot` (findSlot): a key from
 * the sync history finds its flow's slot in one lookup, in a map made once, not per cycle.
 */
const slotsByKey = new Map<string, number>();
const slotSpan = 2 ** 31;
const columnsByPartitions = new WeakMap<readonly FlowPartition[], FlowColumns>();
/** The columns buildFlow filled, by flow: found without reading `flow.partitions` (made on demand, flow-rows.ts). */
const columnsByFlow = new WeakMap<Flow, FlowColumns>();
let generations = 0;

/**
 * The columns of a flow: those buildFlow filled (its partitions array is not made for them), else those kept for
 * its partitions array, else filled now from the partitions (once per array: a snapshot is immutable).
 */
export function readFlowColumns(flow: Flow): FlowColumns {
  const built = columnsByFlow.get(flow);
  if (built !== undefined && isCurrent(built, flow.id)) return built;
  const { partitions } = flow;
  const known = columnsByPartitions.get(partitions);
  if (known !== undefined && isCurrent(known, flow.id)) return known;
  return fillFlowColumns(flow.id, partitions, false);
}

function isCurrent(columns: FlowColumns, flowId: string): boolean {
  return columns.flowId === flowId && columns.generation === indexes.get(flowId)?.generation;
}

/** Keeps buildFlow's columns for its flow (readFlowColumns). */
export function keepFlowColumns(flow: Flow, columns: FlowColumns): void {
  columnsByFlow.set(flow, columns);
}

/** Keeps a flow's columns for its partitions array once made: a copy of the flow sharing the array finds them. */
export function keepPartitionsColumns(partitions: readonly FlowPartition[], columns: FlowColumns): void {
  columnsByPartitions.set(partitions, columns);
}

/**
 * Fills the columns of one cycle's partitions of a flow against its stable slots (made here for partitions seen
 * for the first time), and keeps them for readFlowColumns. Throws, naming the partition, on an offset ≥ 2^53.
 * `compact`: the slots may be reassigned if too many are idle (only where a cycle starts, buildFlow: the
 * columns a cycle's detectors compare are then of one generation).
 */
export function fillFlowColumns(flowId: string, partitions: readonly FlowPartition[], compact: boolean): FlowColumns {
  let index = indexes.get(flowId);
  if (index === undefined) indexes.set(flowId, (index = createIndex()));
  let slotAt = assignSlots(flowId, index, partitions);
  if (compact && index.keys.length - partitions.length > Math.max(maxIdleSlots, partitions.length)) {
    // Topics come and go: reassign the slots densely (columns of the older generation are refilled on use).
    forgetIndex(index);
    indexes.set(flowId, (index = createIndex()));
    slotAt = assignSlots(flowId, index, partitions);
  }
  const slots = index.keys.length;
  const columns: FlowColumns = {
    flowId,
    generation: index.generation,
    slots,
    slotAt,
    duplicates: false,
    knownPositionOf: new Int32Array(slots).fill(-1),
    keys: index.keys,
    ...createOffsetColumns(slots, Number.NaN),
    sourceTopicId: new Int32Array(slots).fill(-1),
    flags: new Uint8Array(slots),
    topicRunStarts: listTopicRunStarts(partitions),
  };
  const filled = new Uint8Array(slots);
  // Offsets beyond 2^53 round to numbers past MAX_SAFE_INTEGER: one comparison per value here, the partition
  // looked for (and named) only if there is one.
  let beyond = false;
  const toNumber = (value: bigint | null): number => {
    if (value === null) return Number.NaN;
    const n = Number(value);
    if (n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER) beyond = true;
    return n;
  };
  let lastTopicId: string | null = null;
  let lastTopicIdNumber = -1;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i]!;
    const slot = slotAt[i]!;
    if (filled[slot] === 1) columns.duplicates = true;
    filled[slot] = 1;
    if (p.unknown === null) columns.knownPositionOf[slot] = i;
    fillSlot(columns, slot, p, toNumber);
    // A topic's partitions share their ID: one map lookup per run of them.
    if (p.sourceTopicId !== lastTopicId) {
      lastTopicId = p.sourceTopicId;
      lastTopicIdNumber = numberTopicId(index, lastTopicId);
    }
    columns.sourceTopicId[slot] = lastTopicIdNumber;
  }
  if (beyond) throwBeyondExact(flowId, partitions);
  columnsByPartitions.set(partitions, columns);
  return columns;
}

/** The number of a source topic ID in its flow's index (−1: none), numbered on first sight. */
function numberTopicId(index: SlotIndex, id: string | null): number {
  if (id === null) return -1;
  let n = index.topicIds.get(id);
  if (n === undefined) index.topicIds.set(id, (n = index.topicIds.size));
  return n;
}

/** The positions where a run of one topic and target topic starts (FlowColumns.topicRunStarts). */
function listTopicRunStarts(partitions: readonly FlowPartition[]): Int32Array {
  const starts: number[] = [];
  let last: FlowPartition | undefined;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i]!;
    if (last === undefined || p.topic !== last.topic || p.targetTopic !== last.targetTopic) starts.push(i);
    last = p;
  }
  return Int32Array.from(starts);
}

/** Names the first partition with an offset beyond 2^53 (fillFlowColumns saw one). */
/** A flow's offset that numbers cannot hold exactly: its columns cannot be made (the message names the partition). */
/** Whether two listings' slots (FlowColumns.slotAt) place every partition alike: a reader's per-slot state still holds. */
export function isSameSlots(a: Int32Array, b: Int32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class OffsetBeyondExactError extends Error {
  override readonly name = "OffsetBeyondExactError";
}

function throwBeyondExact(flowId: string, partitions: readonly FlowPartition[]): never {
  const fields = [
    ["sourceLogStart", "source log start"],
    ["sourceLogEnd", "source log end"],
    ["mm2Position", "MM2's position"],
    ["committedPosition", "MM2's committed position"],
    ["targetLogStart", "target log start"],
    ["targetLogEnd", "target log end"],
    ["lag", "lag"],
  ] as const;
  for (const p of partitions) {
    for (const [field, what] of fields) {
      const value = p[field];
      if (value !== null && !Number.isSafeInteger(Number(value))) {
        const where = `${flowId} ${p.topic}/${p.partition}`;
        throw new OffsetBeyondExactError(`${where}: ${what} ${value} is beyond 2^53, where offsets stop being exact as numbers`);
      }
    }
  }
  throw new OffsetBeyondExactError(`${flowId}: an offset is beyond 2^53, where offsets stop being exact as numbers`);
}

/**
 * Keeps the columns of `to`, a copy of `from` (the same flow's partitions in the same order) whose partitions changed
 * only in `lag`, to the source tail's count of data records where `recordLag` (by position) is not NaN
 * (unreplicated-tail.ts): its other columns and slots are shared. Returns them (the caller keeps them for the
 * copy's partitions array, made on demand), or null when `from` has no current columns to copy.
 */
export function refillLagColumn(from: Flow, to: Flow, recordLag: Float64Array): FlowColumns | null {
  const before = findKeptColumns(from);
  if (before === undefined || before.slotAt.length !== recordLag.length) return null;
  const lag = before.lag.slice();
  // A slot listed twice holds the last position's lag, refined or not (a flow with duplicates has its array made).
  const partitions = before.duplicates ? from.partitions : null;
  for (let i = 0; i < recordLag.length; i++) {
    const records = recordLag[i]!;
    const slot = before.slotAt[i]!;
    if (!Number.isNaN(records)) lag[slot] = records;
    else if (partitions !== null) {
      const p = partitions[i]!;
      if (p.lag !== null && !Number.isSafeInteger(Number(p.lag))) throwBeyondExact(from.id, [p]);
      lag[slot] = p.lag === null ? Number.NaN : Number(p.lag);
    }
  }
  const columns = { ...before, lag };
  columnsByFlow.set(to, columns);
  return columns;
}

/** The flow's current columns kept by buildFlow or for its partitions array, without making the array. */
function findKeptColumns(flow: Flow): FlowColumns | undefined {
  const built = columnsByFlow.get(flow);
  if (built !== undefined) return isCurrent(built, flow.id) ? built : undefined;
  const known = columnsByPartitions.get(flow.partitions);
  return known !== undefined && isCurrent(known, flow.id) ? known : undefined;
}

/**
 * findEncodedSlot's last key and answer: a cycle asks about each key of the sync history two or three times in a row
 * (fresh now, fresh last cycle; sync-steps.ts), and a lookup in a map of every partition's key misses the CPU's caches.
 * Forgotten whenever slotsByKey changes.
 */
let lastKey: string | undefined;
let lastAt = -1;

/** Where a flow partition key's slot is: `generation × 2^31 + slot` (generationOf, slotOf), or −1 when no flow's columns hold it. */
export function findEncodedSlot(key: string): number {
  if (key !== lastKey) {
    lastAt = slotsByKey.get(key) ?? -1;
    lastKey = key;
  }
  return lastAt;
}

/** The slot generation of an encoded slot (findEncodedSlot). */
export function generationOf(at: number): number {
  return Math.floor(at / slotSpan);
}

/** The slot of an encoded slot (findEncodedSlot). */
export function slotOf(at: number): number {
  return at % slotSpan;
}

function forgetIndex(index: SlotIndex): void {
  lastKey = undefined;
  for (let slot = 0; slot < index.keys.length; slot++) {
    const key = index.keys[slot];
    if (key !== undefined && slotsByKey.get(key) === index.generation * slotSpan + slot) slotsByKey.delete(key);
  }
}

function createIndex(): SlotIndex {
  return { generation: ++generations, byTopic: new Map(), keys: [], topicIds: new Map() };
}

/** Each position's slot; a partition seen for the first time gets the next free one. */
function assignSlots(flowId: string, index: SlotIndex, partitions: readonly FlowPartition[]): Int32Array {
  const slotAt = new Int32Array(partitions.length);
  let topic: string | undefined;
  let table: number[] = [];
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i]!;
    // A topic's partitions are listed together (buildFlow's order): one map lookup per run of them.
    if (p.topic !== topic) {
      topic = p.topic;
      const known = index.byTopic.get(topic);
      if (known === undefined) index.byTopic.set(topic, (table = []));
      else table = known;
    }
    let slot = isSlotIndexable(p.partition) ? table[p.partition] : undefined;
    if (slot === undefined) slot = assignSlot(flowId, index, table, p.topic, p.partition);
    slotAt[i] = slot;
  }
  return slotAt;
}

function assignSlot(flowId: string, index: SlotIndex, table: number[], topic: string, partition: number): number {
  const slot = index.keys.length;
  const key = flowPartitionKey(flowId, topic, partition);
  index.keys.push(key);
  slotsByKey.set(key, index.generation * slotSpan + slot);
  lastKey = undefined;
  // Partition numbers that cannot be array indexes (never in Kafka) get a fresh slot each cycle until compaction.
  if (isSlotIndexable(partition)) table[partition] = slot;
  return slot;
}

function isSlotIndexable(partition: number): boolean {
  return Number.isInteger(partition) && partition >= 0;
}

/**
 * Fills a cycle's columns from buildFlow's rows (flow-rows.ts): buildFlow gives each listed position the slot its
 * partition has (found by its topic's slot table, looked up once per topic) or −1, and `finish` gives the
 * partitions seen for the first time their slots in sorted order (as fillFlowColumns gives them), then copies each
 * position's numbers to its slot in one pass over typed arrays: no partition object is read or made.
 * A flow listing a partition twice, or whose idle slots call for a new generation, is filled by fillFlowColumns
 * from its partitions, made then.
 */
export class FlowColumnsFiller {
  private readonly index: SlotIndex;
  private readonly filled: Uint8Array;
  /** Per listed position: its slot, or −1 when it has none yet (given in `finish`). */
  private readonly listedSlots: Int32Array;
  private duplicates = false;

  /** `listed`: how many partitions the cycle lists. */
  constructor(
    private readonly flowId: string,
    listed: number,
  ) {
    let index = indexes.get(flowId);
    if (index === undefined) indexes.set(flowId, (index = createIndex()));
    this.index = index;
    this.filled = new Uint8Array(index.keys.length);
    this.listedSlots = new Int32Array(listed).fill(-1);
  }

  /** The slot generation the columns are filled against (a cache by slot is valid within it). */
  get generation(): number {
    return this.index.generation;
  }

  /** A topic's slots by partition number, or undefined when none of its partitions has a slot yet. */
  findTopicSlots(topic: string): readonly number[] | undefined {
    return this.index.byTopic.get(topic);
  }

  /** The slot of a partition of a topic (findTopicSlots), or −1 when it has none yet. */
  findSlot(slots: readonly number[] | undefined, partition: number): number {
    if (slots === undefined || !isSlotIndexable(partition)) return -1;
    return slots[partition] ?? -1;
  }

  /** Records the slot (−1: none yet) of the partition listed at `at`. */
  put(at: number, slot: number): void {
    this.listedSlots[at] = slot;
    if (slot < 0) return;
    if (this.filled[slot] === 1) this.duplicates = true;
    this.filled[slot] = 1;
  }

  /**
   * The columns of the sorted rows (`rows.order` set), kept for readFlowColumns; `partitions` when they had to be
   * made (a partition listed twice, a new generation), else null. Throws, naming the partition, on an offset ≥ 2^53.
   */
  finish(rows: FlowRows): { columns: FlowColumns; partitions: FlowPartition[] | null } {
    const { index, flowId } = this;
    const order = rows.order;
    const made = () => {
      const partitions = rows.makePartitions();
      return { columns: fillFlowColumns(flowId, partitions, true), partitions };
    };
    if (this.duplicates) return made();
    const slotAt = new Int32Array(order.length);
    let table: number[] = [];
    let topic: string | undefined;
    for (let i = 0; i < order.length; i++) {
      let slot = this.listedSlots[order[i]!]!;
      if (slot < 0) {
        // First seen: its slot given in sorted order, as assignSlots gives it.
        const name = rows.topicOf(i);
        const partition = rows.partitionOf(i);
        if (name !== topic) {
          topic = name;
          const slots = index.byTopic.get(topic);
          if (slots === undefined) index.byTopic.set(topic, (table = []));
          else table = slots;
        }
        // A slot found now was given earlier in this pass: the partition is listed twice, and fillFlowColumns
        // holds the last listing's values (the slots given so far are the ones it gives, in the same order).
        if (isSlotIndexable(partition) && table[partition] !== undefined) return made();
        slot = assignSlot(flowId, index, table, name, partition);
      }
      slotAt[i] = slot;
    }
    if (index.keys.length - order.length > Math.max(maxIdleSlots, order.length)) return made();
    if (rows.beyond) throwBeyondExact(flowId, rows.makePartitions());
    return { columns: this.complete(rows, slotAt), partitions: null };
  }

  /** The columns once every position has its slot: one pass in sorted order over the rows' typed arrays. */
  private complete(rows: FlowRows, slotAt: Int32Array): FlowColumns {
    const slots = this.index.keys.length;
    const columns: FlowColumns = {
      flowId: this.flowId,
      generation: this.index.generation,
      slots,
      slotAt,
      duplicates: false,
      knownPositionOf: new Int32Array(slots).fill(-1),
      keys: this.index.keys,
      ...createOffsetColumns(slots, Number.NaN),
      sourceTopicId: new Int32Array(slots).fill(-1),
      flags: new Uint8Array(slots),
      topicRunStarts: new Int32Array(0),
    };
    const { order, offsets, flags, topicAt } = rows;
    const runStarts: number[] = [];
    let lastTopic = -1;
    let lastTopicId: string | null = null;
    let lastTopicIdNumber = -1;
    // Each column copied in a pass of its own: one pair of arrays at a time in the caches. All seven at once, read at
    // scattered listed positions, cost 2.4 s of CPU a cycle at 1,000,000 partitions, 36 times their cost at 100,000.
    for (const field of offsetFields) copyBySlot(offsets[field], columns[field], order, slotAt);
    for (let i = 0; i < order.length; i++) {
      const at = order[i]!;
      const slot = slotAt[i]!;
      columns.flags[slot] = flags[at]!;
      if (rows.isKnown(at)) columns.knownPositionOf[slot] = i;
      // Each member topic is one run (buildFlow interns a topic's remote name: equal names, one member).
      const topic = topicAt[at]!;
      if (topic !== lastTopic) {
        const { topic: name, targetTopic, sourceTopicId: topicId } = rows.topics[topic]!;
        const before = lastTopic < 0 ? undefined : rows.topics[lastTopic]!;
        if (before === undefined || before.topic !== name || before.targetTopic !== targetTopic) runStarts.push(i);
        lastTopic = topic;
        // Numbered in sorted order on first sight, as fillFlowColumns numbers them: one map lookup per run.
        if (topicId !== lastTopicId) {
          lastTopicId = topicId;
          lastTopicIdNumber = numberTopicId(this.index, lastTopicId);
        }
      }
      columns.sourceTopicId[slot] = lastTopicIdNumber;
    }
    columns.topicRunStarts = Int32Array.from(runStarts);
    return columns;
  }
}

/** `to[slotAt[i]] = from[order[i]]` for every sorted position `i`. */
function copyBySlot(from: Float64Array, to: Float64Array, order: Int32Array, slotAt: Int32Array): void {
  for (let i = 0; i < order.length; i++) to[slotAt[i]!] = from[order[i]!]!;
}

/** One slot's offsets and flags from its partition object. */
function fillSlot(columns: FlowColumns, slot: number, p: FlowPartition, toNumber: (value: bigint | null) => number): void {
  for (const field of offsetFields) columns[field][slot] = toNumber(p[field]);
  columns.flags[slot] = describeFlags(p);
}

/** A partition's FlowFlag bits. */
export function describeFlags(p: Pick<FlowPartition, "copierChange" | "targetDensityIssue">): number {
  return (p.copierChange !== undefined ? FlowFlag.COPIER_CHANGE : 0) | (p.targetDensityIssue !== null ? FlowFlag.TARGET_NOT_DENSE : 0);
}
