/**
 * One cluster's partition states of one poll, held in typed arrays by position (topic after topic, in the order the
 * Metadata response lists them) instead of one PartitionState object per partition: at 100,000 flow partitions those
 * objects (about 200,000 of them, with their bigints and three short arrays each) were the last per-partition objects
 * a cycle made (issue 32). A topic the cluster poll makes has its `partitions` array made from these rows the first
 * time someone reads it (definePartitionsFromRows), field by field what the poll built before; the per-cycle readers
 * (leader-marks.ts, the detectors' cluster columns) read the rows through findTopicRows and never make it.
 */
import type { PartitionState, PreviousEpochEnd, TopicState } from "./types";

/** The two fields only a few partitions have, by position. */
export interface RarePartitionFields {
  previousEpochEnd?: PreviousEpochEnd;
  eligibleLeaderReplicas?: number[] | null;
}

/** What one partition of the Metadata and ListOffsets responses gives (ClusterPartitionRows.put). */
export interface PartitionReading {
  partition: number;
  leader: number | null;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
  offlineReplicas: readonly number[];
  logStart: bigint | null;
  logEnd: bigint | null;
  error: string | null;
}

/** The replica lists of a partition, in PartitionState's field order (`listStart` holds three per partition). */
const replicaLists = ["replicas", "isr", "offlineReplicas"] as const;

/** One cluster's partition states of one poll, by position; `topicStart` says where each topic's begin. */
export class ClusterPartitionRows {
  /** Per topic, and one more: the position of its first partition. */
  readonly topicStart: Int32Array;
  readonly topicNames: string[];
  readonly partition: Int32Array;
  /** The leader's broker id, −1 for none (null). */
  readonly leader: Int32Array;
  readonly leaderEpoch: Int32Array;
  /** The offsets as numbers, NaN for null; exact below 2^53 (beyond it, `exact` holds the bigint). */
  readonly logStart: Float64Array;
  readonly logEnd: Float64Array;
  /** Per position: the index of its error in `errors`, or −1 (null). */
  readonly errorAt: Int32Array;
  readonly errors: string[] = [];
  /** Per position, three entries (replicas, ISR, offline replicas), and one more: where each list starts in `ids`. */
  readonly listStart: Int32Array;
  /** The broker ids of every replica list, one after another. */
  readonly ids: Int32Array;
  /** `previousEpochEnd` and `eligibleLeaderReplicas` of the few partitions that have them, by position. */
  readonly rare = new Map<number, RarePartitionFields>();
  /** Offsets numbers cannot hold exactly, by `position × 2` (log start) or `+ 1` (log end). */
  private readonly exact = new Map<number, bigint>();
  private readonly errorIndex = new Map<string, number>();
  private nextId = 0;

  /** Rows for `length` partitions in `topics` topics whose replica lists hold `idCount` ids in all. */
  constructor(topics: number, readonly length: number, idCount: number) {
    this.topicStart = new Int32Array(topics + 1);
    this.topicNames = new Array<string>(topics);
    this.partition = new Int32Array(length);
    this.leader = new Int32Array(length);
    this.leaderEpoch = new Int32Array(length);
    this.logStart = new Float64Array(length);
    this.logEnd = new Float64Array(length);
    this.errorAt = new Int32Array(length);
    this.listStart = new Int32Array(length * 3 + 1);
    this.ids = new Int32Array(idCount);
  }

  /** Starts topic `t` (named `name`) at position `at`; the topics are started in order, the last ends at `length`. */
  startTopic(t: number, name: string, at: number): void {
    this.topicNames[t] = name;
    this.topicStart[t] = at;
    this.topicStart[t + 1] = this.length;
  }

  /** Records the partition at position `at` (positions are put in order). */
  put(at: number, r: PartitionReading): void {
    this.partition[at] = r.partition;
    this.leader[at] = r.leader ?? -1;
    this.leaderEpoch[at] = r.leaderEpoch;
    this.logStart[at] = this.enterOffset(at * 2, r.logStart);
    this.logEnd[at] = this.enterOffset(at * 2 + 1, r.logEnd);
    this.errorAt[at] = r.error === null ? -1 : this.numberError(r.error);
    for (let k = 0; k < 3; k++) {
      const list = r[replicaLists[k]!];
      this.listStart[at * 3 + k] = this.nextId;
      for (let i = 0; i < list.length; i++) this.ids[this.nextId++] = list[i]!;
    }
    this.listStart[at * 3 + 3] = this.nextId;
  }

  /** Adds `fields` to the partition at `at` (after the ones it has: the order they are added is their key order). */
  addRare(at: number, fields: RarePartitionFields): void {
    this.rare.set(at, { ...this.rare.get(at), ...fields });
  }

  /** The leader of the partition at `at`, null for none. */
  leaderOf(at: number): number | null {
    const leader = this.leader[at]!;
    return leader < 0 ? null : leader;
  }

  /** How many ids list `k` (0 replicas, 1 ISR, 2 offline replicas) of the partition at `at` holds. */
  countList(at: number, k: number): number {
    return this.listStart[at * 3 + k + 1]! - this.listStart[at * 3 + k]!;
  }

  /** List `k` (0 replicas, 1 ISR, 2 offline replicas) of the partition at `at`, as a new array. */
  makeList(at: number, k: number): number[] {
    const list: number[] = [];
    for (let i = this.listStart[at * 3 + k]!; i < this.listStart[at * 3 + k + 1]!; i++) list.push(this.ids[i]!);
    return list;
  }

  /** The log start of the partition at `at`. */
  logStartOf(at: number): bigint | null {
    return this.readOffset(at * 2, this.logStart[at]!);
  }

  /** The log end of the partition at `at`. */
  logEndOf(at: number): bigint | null {
    return this.readOffset(at * 2 + 1, this.logEnd[at]!);
  }

  /** The error of the partition at `at`. */
  errorOf(at: number): string | null {
    const n = this.errorAt[at]!;
    return n < 0 ? null : this.errors[n]!;
  }

  /** Whether any offset of these rows is beyond ±(2^53 − 1) (else isInexact is false at every position). */
  hasInexact(): boolean {
    return this.exact.size > 0;
  }

  /** Whether an offset of the partition at `at` is beyond ±(2^53 − 1), its number not exact. */
  isInexact(at: number): boolean {
    return this.exact.size > 0 && (this.exact.has(at * 2) || this.exact.has(at * 2 + 1));
  }

  /** The partition at `at` of topic `t`, as the cluster poll built it (a new object, in PartitionState's key order). */
  makePartition(t: number, at: number): PartitionState {
    const made: PartitionState = {
      topic: this.topicNames[t]!,
      partition: this.partition[at]!,
      leader: this.leaderOf(at),
      leaderEpoch: this.leaderEpoch[at]!,
      replicas: this.makeList(at, 0),
      isr: this.makeList(at, 1),
      offlineReplicas: this.makeList(at, 2),
      logStart: this.logStartOf(at),
      logEnd: this.logEndOf(at),
      error: this.errorOf(at),
    };
    const rare = this.rare.get(at);
    if (rare === undefined) return made;
    if (rare.previousEpochEnd !== undefined) made.previousEpochEnd = rare.previousEpochEnd;
    if (rare.eligibleLeaderReplicas !== undefined) made.eligibleLeaderReplicas = rare.eligibleLeaderReplicas;
    return made;
  }

  /** The partitions of topic `t` (new objects). */
  makeTopicPartitions(t: number): PartitionState[] {
    const partitions: PartitionState[] = [];
    for (let at = this.topicStart[t]!; at < this.topicStart[t + 1]!; at++) partitions.push(this.makePartition(t, at));
    return partitions;
  }

  private enterOffset(key: number, value: bigint | null): number {
    if (value === null) return Number.NaN;
    const n = Number(value);
    if (n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER) this.exact.set(key, value);
    return n;
  }

  private readOffset(key: number, n: number): bigint | null {
    if (Number.isNaN(n)) return null;
    return this.exact.size === 0 ? BigInt(n) : (this.exact.get(key) ?? BigInt(n));
  }

  private numberError(error: string): number {
    let n = this.errorIndex.get(error);
    if (n === undefined) {
      n = this.errors.length;
      this.errors.push(error);
      this.errorIndex.set(error, n);
    }
    return n;
  }
}

/** Where a topic's partitions are in its cluster's rows. */
export interface TopicRows {
  rows: ClusterPartitionRows;
  /** The topic's index in the rows. */
  topic: number;
  /** Its partitions are rows[from, to). */
  from: number;
  to: number;
}

/** The rows of each topic whose `partitions` were not made yet. */
const rowsByTopic = new WeakMap<TopicState, TopicRows>();
let partitionArraysMade = 0;

/**
 * Makes `topic.partitions` from topic `t` of `rows` when first read (then a plain array property in the same place
 * among the topic's keys: JSON.stringify, a spread and structuredClone see the topic as before). A write replaces it.
 * Only once every topic of `rows` is started (where topic `t` ends is known then).
 */
export function definePartitionsFromRows(topic: TopicState, rows: ClusterPartitionRows, t: number): void {
  rowsByTopic.set(topic, { rows, topic: t, from: rows.topicStart[t]!, to: rows.topicStart[t + 1]! });
  Object.defineProperty(topic, "partitions", {
    configurable: true,
    enumerable: true,
    get(this: TopicState): PartitionState[] {
      partitionArraysMade++;
      const partitions = rows.makeTopicPartitions(t);
      settlePartitions(this, partitions);
      return partitions;
    },
    set(this: TopicState, partitions: PartitionState[]) {
      settlePartitions(this, partitions);
    },
  });
}

function settlePartitions(topic: TopicState, partitions: PartitionState[]): void {
  rowsByTopic.delete(topic);
  Object.defineProperty(topic, "partitions", { value: partitions, writable: true, enumerable: true, configurable: true });
}

/**
 * The rows of a topic the cluster poll made whose `partitions` nobody read yet, else undefined (a topic decoded from
 * a recording, or one whose array was made: read `topic.partitions`).
 */
export function findTopicRows(topic: TopicState): TopicRows | undefined {
  return rowsByTopic.get(topic);
}

/** How many partition arrays were made from rows since the process started (tests count the hot path's). */
export function countClusterPartitionArraysMade(): number {
  return partitionArraysMade;
}

/** How many partitions the topic has, without making its array. */
export function countTopicPartitions(topic: TopicState): number {
  const found = rowsByTopic.get(topic);
  return found === undefined ? topic.partitions.length : found.to - found.from;
}

/**
 * The property names, in order, of a state makePartition makes (its literal's order), for writers of the same shape
 * without the object (the publication's encoder keys shapes by these arrays).
 */
export const partitionStateKeys: readonly string[] = [
  "topic", "partition", "leader", "leaderEpoch", "replicas", "isr", "offlineReplicas", "logStart", "logEnd", "error",
];

/** What buildFlow and its unknown judge read of a partition state. */
export type StateReading = Pick<PartitionState, "topic" | "partition" | "leaderEpoch" | "logStart" | "logEnd" | "error">;

/**
 * A state as buildFlow reads most of them: the log offsets as numbers, NaN for null, exact within ±2^53 (beyond it
 * the rows' number is not exact: read the state's bigints, PartitionStateReader.read).
 */
export type StateNumbers = Omit<StateReading, "logStart" | "logEnd"> & { logStart: number; logEnd: number };

/**
 * Reads one topic's partition states at a time, by position: a topic with rows into one object refilled by every read
 * (a reading is used before the next read of the same reader), else its array's states.
 */
export class PartitionStateReader {
  private readonly reading: StateReading = { topic: "", partition: 0, leaderEpoch: 0, logStart: null, logEnd: null, error: null };
  private readonly numbers: StateNumbers = {
    topic: "", partition: 0, leaderEpoch: 0, logStart: Number.NaN, logEnd: Number.NaN, error: null,
  };
  private found: TopicRows | undefined;
  private array: readonly PartitionState[] | undefined;
  private length = 0;

  /** Reads `topic` from now on (undefined: a topic with no partition); returns how many partitions it has. */
  open(topic: TopicState | undefined): number {
    this.found = topic === undefined ? undefined : rowsByTopic.get(topic);
    this.array = topic === undefined || this.found !== undefined ? undefined : topic.partitions;
    this.length = this.found === undefined ? (this.array?.length ?? 0) : this.found.to - this.found.from;
    return this.length;
  }

  /** The partition number of the state at position `i`. */
  partitionAt(i: number): number {
    return this.found === undefined ? this.array![i]!.partition : this.found.rows.partition[this.found.from + i]!;
  }

  /** The state at position `i`. */
  read(i: number): StateReading {
    if (this.found === undefined) return this.array![i]!;
    const { rows, topic, from } = this.found;
    const at = from + i;
    const r = this.reading;
    r.topic = rows.topicNames[topic]!;
    r.partition = rows.partition[at]!;
    r.leaderEpoch = rows.leaderEpoch[at]!;
    r.logStart = rows.logStartOf(at);
    r.logEnd = rows.logEndOf(at);
    r.error = rows.errorOf(at);
    return r;
  }

  /**
   * The state at position `i` with its log offsets as numbers, into one object refilled by every readNumbers: from the
   * rows as they hold them (a bigint made per offset and read cost more than the states' objects did, issue 32).
   */
  readNumbers(i: number): StateNumbers {
    const r = this.numbers;
    if (this.found === undefined) {
      const state = this.array![i]!;
      r.topic = state.topic;
      r.partition = state.partition;
      r.leaderEpoch = state.leaderEpoch;
      r.logStart = state.logStart === null ? Number.NaN : Number(state.logStart);
      r.logEnd = state.logEnd === null ? Number.NaN : Number(state.logEnd);
      r.error = state.error;
      return r;
    }
    const { rows, topic, from } = this.found;
    const at = from + i;
    r.topic = rows.topicNames[topic]!;
    r.partition = rows.partition[at]!;
    r.leaderEpoch = rows.leaderEpoch[at]!;
    r.logStart = rows.logStart[at]!;
    r.logEnd = rows.logEnd[at]!;
    r.error = rows.errorOf(at);
    return r;
  }

  /** The state of partition `partition`, looked for first at position `at` (where a topic listed in order has it). */
  find(at: number, partition: number): StateReading | undefined {
    const i = this.locate(at, partition);
    return i < 0 ? undefined : this.read(i);
  }

  /** The position of partition `partition`, looked for first at position `at`; −1 when the topic has none. */
  locate(at: number, partition: number): number {
    if (at < this.length && this.partitionAt(at) === partition) return at;
    for (let i = 0; i < this.length; i++) if (this.partitionAt(i) === partition) return i;
    return -1;
  }
}
