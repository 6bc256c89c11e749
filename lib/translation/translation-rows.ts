/**
 * A flow's translation rows of one cycle as columns: one slot per group × partition in typed arrays of float64
 * offsets (exact: sync-columns.ts checks every offset where it comes in), set once per cycle and never changed
 * while that cycle's translation can be read (the pipeline reuses the columns of the cycle before last:
 * FlowRowsState.takeRows). A row becomes a PartitionTranslation (bigints, nested objects) only where one is read — a page, the API,
 * the read model's text, a finding's evidence — and the detectors read the columns (GroupRowReader). At 100,000
 * partitions a cycle has 190,000 rows: as objects they were ~1.1 million objects and bigints a cycle.
 *
 * Rows MM2's offset syncs translate (the usual row) are held as numbers; any other row (not replicated, no sync, too
 * old, syncs not read or disabled, a result beyond 2^53) is held as the PartitionTranslation translate-flow.ts made.
 */
import type { CheckpointPoint } from "@/lib/collector/types";
import type { CyclePartitions } from "./flow-partition-index";
import { isSkipping } from "./reread";
import type { SampleColumnsBuilder } from "./sample-columns";
import type { GroupTranslation, IdealOffset, ModelTranslation, PartitionTranslation, RereadEstimate, TranslationTotals } from "./types";
import { growArray, growCapacity } from "@/lib/collector/grown-array";
import { NumericRowRun, type RowBlockSink } from "./numeric-row-columns";
import { IdealCode, idealReadings } from "./ideal-codes";

/** No partition: the rows of a cycle not started yet. */
const noPartitions: RowPartitions = {
  at: () => undefined,
  targetTopicAt: () => {
    throw new Error("no partition: the rows' cycle has not started");
  },
};

/** What rows read of the cycle's flow partitions. */
type RowPartitions = Pick<CyclePartitions, "at" | "targetTopicAt">;

/**
 * The columns of every row of one flow and cycle. translate-flow.ts sets each row once, in order (a numeric row's
 * columns by flow-rows.ts's setNumericRow, any other with setObject), then they are only read until `reuse` starts
 * another cycle in them.
 */
export class TranslationRows {
  private readonly objects = new Map<number, PartitionTranslation>();
  /** 1 where the row is held as an object (`objects`), 0 for a numeric row. */
  readonly isObject: Uint8Array;
  /** The committed offset the row translates (a newer checkpoint's upstream offset where translatePartition takes it). */
  readonly committed: Float64Array;
  /** MM2's translation (the sync's downstream, or one past it). */
  readonly translated: Float64Array;
  /** The ideal position's low and high bound (both the position when exact; unused when unknown). */
  readonly low: Float64Array;
  readonly high: Float64Array;
  /** The latest checkpoint's offsets (unused without one). */
  readonly checkpointUpstream: Float64Array;
  readonly checkpointDownstream: Float64Array;
  /** When the latest checkpoint was read (CheckpointPoint.at; unused without one): totals read it, not the object. */
  readonly checkpointReadAt: Float64Array;
  /** The source log end, NaN when unknown. */
  readonly logEnd: Float64Array;
  readonly ideal: Uint8Array;
  /** The partition's dense index in its flow (SharedTranslations), and the offsets of the sync MM2 translates by. */
  readonly dense: Int32Array;
  readonly syncUpstream: Float64Array;
  readonly syncDownstream: Float64Array;
  /** The latest checkpoint (undefined: none). */
  readonly checkpoints: (CheckpointPoint | undefined)[];
  /**
   * The cycle's flow partitions by dense index, read only where a numeric row is made an object: a row holds no
   * partition object (100,000 of them made every cycle were most of the translation's cost).
   */
  private partitionsByIndex: RowPartitions = noPartitions;
  /** How many cycles these columns have been reused for: a group's rows of an earlier cycle no longer read them. */
  generation = 0;

  /**
   * `capacity`: at least the rows that will be set; `now`: the cycle's time (a checkpoint's age); `shared`: the flow's
   * translations shared by rows of one sync.
   */
  constructor(
    capacity: number,
    private cycleNow: number,
    private readonly shared: SharedTranslations,
  ) {
    this.dense = new Int32Array(capacity);
    this.isObject = new Uint8Array(capacity);
    this.committed = new Float64Array(capacity);
    this.translated = new Float64Array(capacity);
    this.low = new Float64Array(capacity);
    this.high = new Float64Array(capacity);
    this.checkpointUpstream = new Float64Array(capacity);
    this.checkpointDownstream = new Float64Array(capacity);
    this.checkpointReadAt = new Float64Array(capacity);
    this.logEnd = new Float64Array(capacity);
    this.ideal = new Uint8Array(capacity);
    this.syncUpstream = new Float64Array(capacity);
    this.syncDownstream = new Float64Array(capacity);
    this.checkpoints = new Array<CheckpointPoint | undefined>(capacity).fill(undefined);
  }

  /** Where this cycle's numeric rows find their flow partition by dense index (set before the rows are read). */
  readPartitionsFrom(partitions: RowPartitions): void {
    this.partitionsByIndex = partitions;
  }

  /** The cycle's time (a checkpoint's age). */
  get now(): number {
    return this.cycleNow;
  }

  /** The rows the columns hold room for. */
  get capacity(): number {
    return this.isObject.length;
  }

  /**
   * Starts cycle `now` in these columns: every row is set again before it is read (a numeric row's columns are all
   * written by setNumericRow, and `isObject` is cleared here), and the objects and references of the cycle before are
   * let go.
   */
  reuse(now: number): void {
    this.generation++;
    this.cycleNow = now;
    this.objects.clear();
    this.isObject.fill(0);
    this.checkpoints.fill(undefined);
    this.partitionsByIndex = noPartitions;
  }

  /** Sets row `r` as a PartitionTranslation (a row the numbers do not describe). */
  setObject(r: number, row: PartitionTranslation): void {
    this.isObject[r] = 1;
    this.objects.set(r, row);
  }

  /** Row `r` as a PartitionTranslation (a new object for a numeric row; `topic` and `partition` name it). */
  materialize(r: number, topic: string, partition: number): PartitionTranslation {
    if (this.isObject[r] === 1) return this.objects.get(r)!;
    const cp = this.checkpoints[r];
    const fp = this.partitionsByIndex.at(this.dense[r]!)!;
    const committedNumber = this.committed[r]!;
    const translatedNumber = this.translated[r]!;
    const downstream = BigInt(translatedNumber);
    const ideal = this.readIdeal(r);
    const reread = this.estimate(r, translatedNumber);
    const checkpoint = cp ? { upstream: cp.upstream, downstream: cp.downstream, at: cp.at, ageMs: Math.max(0, this.now - cp.at) } : null;
    const checkpointReread = checkpoint !== null && checkpoint.downstream === downstream ? reread : cp ? this.estimate(r, this.checkpointDownstream[r]!) : null;
    const committed = BigInt(committedNumber);
    const lag = fp.sourceLogEnd === null ? null : fp.sourceLogEnd - committed;
    return {
      topic,
      partition,
      targetTopic: fp.targetTopic,
      committed,
      sourceLogEnd: fp.sourceLogEnd,
      groupLag: lag === null ? null : lag > 0n ? lag : 0n,
      translation: this.shared.share(this.dense[r]!, this.syncUpstream[r]!, this.syncDownstream[r]!, committedNumber, downstream),
      checkpoint,
      ideal,
      reread,
      checkpointReread,
      failoverReread: checkpoint ? checkpointReread : reread,
    };
  }

  /** The target topic of numeric row `r` (its flow partition's). */
  targetTopicOf(r: number): string {
    return this.partitionsByIndex.targetTopicAt(this.dense[r]!);
  }

  /** The latest checkpoint of row `r` (upstream, downstream, when read), or null. */
  checkpointAt(r: number): CheckpointPoint | PartitionTranslation["checkpoint"] {
    return this.isObject[r] === 1 ? this.objects.get(r)!.checkpoint : (this.checkpoints[r] ?? null);
  }

  /** isCheckpointOwed(row) !== null, from the columns (detectors.ts). */
  isCheckpointOwed(r: number): boolean {
    if (this.isObject[r] === 1) return readOwedDownstream(this.objects.get(r)!) !== null;
    const translated = this.translated[r]!;
    if (translated < 0) return false;
    const cp = this.checkpoints[r];
    if (cp === undefined) return true;
    const committed = this.committed[r]!;
    const upstream = this.checkpointUpstream[r]!;
    if (committed === upstream) return false;
    return committed < upstream || translated > this.checkpointDownstream[r]!;
  }

  /** isSkipping(row), from the columns. */
  isSkipping(r: number): boolean {
    if (this.isObject[r] === 1) return isSkipping(this.objects.get(r)!);
    if (this.ideal[r] === IdealCode.UNKNOWN_BEFORE_FIRST_SYNC) return false;
    if (this.skipsFrom(r, this.translated[r]!)) return true;
    return this.checkpoints[r] !== undefined && this.skipsFrom(r, this.checkpointDownstream[r]!);
  }

  /**
   * The store's sample of row `r` (flow-translator.ts listTranslationSamples): the same values as from the row made
   * as an object, without making it (one object and its bigints, where the row is several objects).
   */
  sample(r: number, group: string, topic: string, partition: number): RowSample {
    if (this.isObject[r] === 1) return sampleRow(group, this.objects.get(r)!);
    const cp = this.checkpoints[r];
    const committed = this.committed[r]!;
    const translated = this.translated[r]!;
    const known = this.ideal[r] !== IdealCode.UNKNOWN_BEFORE_FIRST_SYNC;
    const high = this.high[r]!;
    const logEnd = this.logEnd[r]!;
    return {
      group,
      topic,
      partition,
      committed: BigInt(committed),
      translated: BigInt(translated),
      checkpointDownstream: cp?.downstream ?? null,
      idealLow: known ? BigInt(this.low[r]!) : null,
      idealHigh: known ? BigInt(high) : null,
      reread: known ? BigInt(high - translated) : null,
      failoverReread: known ? BigInt(high - (cp !== undefined ? this.checkpointDownstream[r]! : translated)) : null,
      groupLag: Number.isNaN(logEnd) ? null : logEnd > committed ? BigInt(logEnd - committed) : 0n,
    };
  }

  /**
   * Writes the store samples (sample's values) of rows [0, into.length) into `into`: numbers, NaN for null, without
   * making a sample where the row is numeric. `groups[r]`: row r's group.
   */
  writeSamples(into: SampleColumnsBuilder, groups: readonly string[]): void {
    const { committed, translated, checkpointDownstream, idealLow, idealHigh, reread, failoverReread, groupLag } = into;
    for (let r = 0; r < into.length; r++) {
      if (this.isObject[r] === 1) {
        into.setSample(r, sampleRow(groups[r]!, this.objects.get(r)!));
        continue;
      }
      const hasCheckpoint = this.checkpoints[r] !== undefined;
      const rowCommitted = this.committed[r]!;
      const rowTranslated = this.translated[r]!;
      const known = this.ideal[r] !== IdealCode.UNKNOWN_BEFORE_FIRST_SYNC;
      const high = this.high[r]!;
      const logEnd = this.logEnd[r]!;
      committed[r] = rowCommitted;
      translated[r] = rowTranslated;
      checkpointDownstream[r] = hasCheckpoint ? this.checkpointDownstream[r]! : Number.NaN;
      idealLow[r] = known ? this.low[r]! : Number.NaN;
      idealHigh[r] = known ? high : Number.NaN;
      reread[r] = known ? high - rowTranslated : Number.NaN;
      failoverReread[r] = known ? high - (hasCheckpoint ? this.checkpointDownstream[r]! : rowTranslated) : Number.NaN;
      // NaN (log end unknown) stays NaN: no lag.
      groupLag[r] = Number.isNaN(logEnd) ? Number.NaN : logEnd > rowCommitted ? logEnd - rowCommitted : 0;
    }
  }

  /** Adds the rows [start, end) to `totals` (sumTotals' sums; bigints only for the sums). */
  addTotals(start: number, end: number, totals: TranslationTotals): void {
    const reread = rereadSum;
    const failover = failoverSum;
    const lag = lagSum;
    for (let r = start; r < end; r++) {
      if (this.isObject[r] === 1) {
        addObjectRow(this.objects.get(r)!, totals);
        continue;
      }
      totals.partitions++;
      totals.translated++;
      if (this.isSkipping(r)) totals.skippingPartitions++;
      const cp = this.checkpoints[r];
      if (cp !== undefined) {
        const age = Math.max(0, this.now - this.checkpointReadAt[r]!);
        if (totals.oldestCheckpointAgeMs === null || age > totals.oldestCheckpointAgeMs) totals.oldestCheckpointAgeMs = age;
      }
      // NaN (log end unknown) compares false.
      const groupLag = this.logEnd[r]! - this.committed[r]!;
      if (groupLag > 0) lag.add(groupLag);
      if (this.ideal[r] === IdealCode.UNKNOWN_BEFORE_FIRST_SYNC) continue;
      const records = this.high[r]! - this.translated[r]!;
      if (records > 0) reread.add(records);
      const from = cp !== undefined ? this.checkpointDownstream[r]! : this.translated[r]!;
      const replay = this.high[r]! - from;
      if (replay > 0) failover.add(replay);
    }
    totals.rereadRecords += reread.takeTotal();
    totals.failoverReplayRecords += failover.takeTotal();
    totals.groupLag += lag.takeTotal();
    totals.untranslatable = totals.partitions - totals.translated;
  }

  private skipsFrom(r: number, from: number): boolean {
    return this.low[r]! - from < 0 || this.high[r]! - from < 0;
  }

  private readIdeal(r: number): IdealOffset {
    const reading = idealReadings[this.ideal[r]!]!;
    switch (reading.kind) {
      case "exact":
        return { kind: "exact", downstream: BigInt(this.low[r]!), basis: reading.why };
      case "bracket":
        return { kind: "bracket", low: BigInt(this.low[r]!), high: BigInt(this.high[r]!), reason: reading.why };
      default:
        return { kind: "unknown", reason: reading.why };
    }
  }

  /** estimateReread(ideal, from) of a numeric row (reread.ts). */
  private estimate(r: number, from: number): RereadEstimate | null {
    if (this.ideal[r] === IdealCode.UNKNOWN_BEFORE_FIRST_SYNC) return null;
    const min = BigInt(this.low[r]! - from);
    const max = BigInt(this.high[r]! - from);
    const skip = max < 0n ? "certain" : min < 0n ? "possible" : "none";
    return { min, max, records: max, skip };
  }
}

/**
 * MM2's translations from each partition's sync of one flow, at it and past it: one object each for every row they
 * give, cycle after cycle, until a row of the partition translates by another sync (190,000 rows at 100,000
 * partitions do not need 190,000 copies). By dense partition index; a sync is known by its offsets.
 */
export class SharedTranslations {
  private up = new Float64Array(0);
  private down = new Float64Array(0);
  private readonly at: (ModelTranslation | undefined)[] = [];
  private readonly past: (ModelTranslation | undefined)[] = [];

  /** The translation of `committed` by the sync (`syncUpstream`, `syncDownstream`) of partition `p` to `downstream`. */
  share(p: number, syncUpstream: number, syncDownstream: number, committed: number, downstream: bigint): ModelTranslation {
    this.reserve(p);
    if (this.up[p] !== syncUpstream || this.down[p] !== syncDownstream) {
      this.up[p] = syncUpstream;
      this.down[p] = syncDownstream;
      this.at[p] = undefined;
      this.past[p] = undefined;
    }
    const atSync = committed === syncUpstream;
    const held = atSync ? this.at[p] : this.past[p];
    if (held !== undefined) return held;
    const translation: ModelTranslation = { kind: "translated", downstream, syncUpstream: BigInt(syncUpstream), syncDownstream: BigInt(syncDownstream) };
    if (atSync) this.at[p] = translation;
    else this.past[p] = translation;
    return translation;
  }

  private reserve(p: number): void {
    if (p < this.up.length) return;
    const size = growCapacity(p, this.up.length);
    this.up = growArray(this.up, size, Number.NaN);
    this.down = growArray(this.down, size, Number.NaN);
    while (this.at.length < size) this.at.push(undefined);
    while (this.past.length < size) this.past.push(undefined);
  }
}

/**
 * A sum of numbers kept exact: added as a number while it stays below 2^53, moved into a bigint when it would not. A
 * numeric row's values are below 2^52 (translate-flow.ts), so each difference of two is exact. Three for every group
 * (addTotals' sums, emptied by takeTotal), not an object per row or group.
 */
class ExactSum {
  private sum = 0;
  private big = 0n;

  add(value: number): void {
    const next = this.sum + value;
    if (Number.isSafeInteger(next)) {
      this.sum = next;
      return;
    }
    this.big += BigInt(this.sum);
    this.sum = value;
  }

  /** The sum, and the sum emptied for the next. */
  takeTotal(): bigint {
    const total = this.big === 0n ? BigInt(this.sum) : this.big + BigInt(this.sum);
    this.sum = 0;
    this.big = 0n;
    return total;
  }
}

const rereadSum = new ExactSum();
const failoverSum = new ExactSum();
const lagSum = new ExactSum();

/** One group partition's translation as the store keeps it (lib/store's TranslationSample is this type). */
export interface RowSample {
  group: string;
  topic: string;
  partition: number;
  committed: bigint;
  translated: bigint | null;
  checkpointDownstream: bigint | null;
  idealLow: bigint | null;
  idealHigh: bigint | null;
  /** ideal − MM2's translation (negative = records skipped). */
  reread: bigint | null;
  /** ideal − what a failover with MM2's offsets gives now (latest checkpoint, else translation). */
  failoverReread: bigint | null;
  /** Source log end − committed. */
  groupLag: bigint | null;
}

/** The sample of a row made as an object (conservative re-read counts). */
export function sampleRow(group: string, p: PartitionTranslation): RowSample {
  const { ideal } = p;
  return {
    group,
    topic: p.topic,
    partition: p.partition,
    committed: p.committed,
    translated: p.translation.kind === "translated" ? p.translation.downstream : null,
    checkpointDownstream: p.checkpoint?.downstream ?? null,
    idealLow: ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.low : null,
    idealHigh: ideal.kind === "exact" ? ideal.downstream : ideal.kind === "bracket" ? ideal.high : null,
    reread: p.reread?.records ?? null,
    failoverReread: p.failoverReread?.records ?? null,
    groupLag: p.groupLag,
  };
}

/** sumTotals' step for one row held as an object. */
function addObjectRow(row: PartitionTranslation, totals: TranslationTotals): void {
  totals.partitions++;
  if (row.reread && row.reread.records > 0n) totals.rereadRecords += row.reread.records;
  if (row.failoverReread && row.failoverReread.records > 0n) totals.failoverReplayRecords += row.failoverReread.records;
  if (row.groupLag !== null && row.groupLag !== 0n) totals.groupLag += row.groupLag;
  if (row.checkpoint && (totals.oldestCheckpointAgeMs === null || row.checkpoint.ageMs > totals.oldestCheckpointAgeMs)) {
    totals.oldestCheckpointAgeMs = row.checkpoint.ageMs;
  }
  if (row.translation.kind === "translated") totals.translated++;
  if (isSkipping(row)) totals.skippingPartitions++;
}

/** The downstream offset MM2 owes as a checkpoint, or null when it owes none (detectors.ts's isCheckpointOwed). */
export function readOwedDownstream(p: Pick<PartitionTranslation, "translation" | "checkpoint" | "committed">): bigint | null {
  if (p.translation.kind !== "translated" || p.translation.downstream < 0n) return null;
  const c = p.checkpoint;
  if (c === null) return p.translation.downstream;
  if (p.committed === c.upstream) return null;
  return p.committed < c.upstream || p.translation.downstream > c.downstream ? p.translation.downstream : null;
}

/** What the detectors read of a group's rows, by position (rows in the group's order), without making every row. */
export interface GroupRowReader {
  readonly length: number;
  /**
   * An object that stays the same (by identity) for as long as readers list the same topic-partitions in the same
   * order, cycle after cycle (the group's layout), so a caller that kept something per row may skip comparing the
   * rows' names; null when unknown.
   */
  readonly rowsIdentity: object | null;
  topic(i: number): string;
  partition(i: number): number;
  /** The row's latest checkpoint (upstream, downstream, when read), or null. */
  checkpoint(i: number): { upstream: bigint; downstream: bigint; at: number } | null;
  isCheckpointOwed(i: number): boolean;
  /**
   * The latest checkpoint's upstream offset as a number, NaN without a checkpoint; beyond 2^53 not exact (the caller
   * checks Number.isSafeInteger and reads `checkpoint` then). No object is made.
   */
  checkpointUpstream(i: number): number;
  /** The latest checkpoint's downstream offset as a number, as `checkpointUpstream`. */
  checkpointDownstream(i: number): number;
  /** When the latest checkpoint was read (ms), NaN without one. */
  checkpointReadAt(i: number): number;
  isSkipping(i: number): boolean;
  /** Whether any row has a checkpoint. */
  hasCheckpoint(): boolean;
  /** Row i as a PartitionTranslation. */
  row(i: number): PartitionTranslation;
  /** Row i as the store's sample of group `group`. */
  sample(i: number, group: string): RowSample;
}

/** A group's slice [start, start + length) of a flow's columns, its rows' topics and partitions in order. */
export class ColumnGroupRows implements GroupRowReader {
  private list: PartitionTranslation[] | null = null;
  /** The columns' generation these rows were written in (TranslationRows.generation). */
  private readonly generation: number;

  constructor(
    private readonly rows: TranslationRows,
    private readonly start: number,
    private readonly topics: readonly string[],
    private readonly partitions: readonly number[],
  ) {
    this.generation = rows.generation;
  }

  get length(): number {
    return this.topics.length;
  }

  /** The layout's topics, an array made with the layout and never changed (FlowRowsState.readLayout). */
  get rowsIdentity(): object {
    return this.topics;
  }

  topic(i: number): string {
    return this.topics[i]!;
  }

  partition(i: number): number {
    return this.partitions[i]!;
  }

  checkpoint(i: number): { upstream: bigint; downstream: bigint; at: number } | null {
    return this.rows.checkpointAt(this.at(i));
  }

  isCheckpointOwed(i: number): boolean {
    return this.rows.isCheckpointOwed(this.at(i));
  }

  checkpointUpstream(i: number): number {
    const r = this.at(i);
    if (this.rows.isObject[r] === 1) return readNumber(this.rows.checkpointAt(r)?.upstream);
    return this.rows.checkpoints[r] === undefined ? Number.NaN : this.rows.checkpointUpstream[r]!;
  }

  checkpointDownstream(i: number): number {
    const r = this.at(i);
    if (this.rows.isObject[r] === 1) return readNumber(this.rows.checkpointAt(r)?.downstream);
    return this.rows.checkpoints[r] === undefined ? Number.NaN : this.rows.checkpointDownstream[r]!;
  }

  checkpointReadAt(i: number): number {
    const r = this.at(i);
    if (this.rows.isObject[r] === 1) return this.rows.checkpointAt(r)?.at ?? Number.NaN;
    return this.rows.checkpoints[r] === undefined ? Number.NaN : this.rows.checkpointReadAt[r]!;
  }

  isSkipping(i: number): boolean {
    return this.rows.isSkipping(this.at(i));
  }

  hasCheckpoint(): boolean {
    for (let i = 0; i < this.topics.length; i++) if (this.rows.checkpointAt(this.at(i)) !== null) return true;
    return false;
  }

  row(i: number): PartitionTranslation {
    return this.list?.[i] ?? this.rows.materialize(this.at(i), this.topics[i]!, this.partitions[i]!);
  }

  sample(i: number, group: string): RowSample {
    return this.rows.sample(this.at(i), group, this.topics[i]!, this.partitions[i]!);
  }

  /** Writes every row into `sink` (writeRowsOf of this group alone). */
  writeRows(sink: RowBlockSink): void {
    ColumnGroupRows.writeRowsOf([this], sink);
  }

  /**
   * Writes every row of `groups`, in order, into `sink`: rows made already as they are, else each run of numeric rows
   * (across groups) a column at a time without making them, and each row held as an object as it is.
   */
  static writeRowsOf(groups: readonly ColumnGroupRows[], sink: RowBlockSink): void {
    const run = new NumericRowRun();
    for (const group of groups) group.addRows(run, sink);
    run.flush(sink);
  }

  /** Adds each numeric row to `run`; writes any other into `sink`, after the run so far. */
  private addRows(run: NumericRowRun, sink: RowBlockSink): void {
    if (this.list !== null) {
      run.flush(sink);
      for (const row of this.list) sink.value(row);
      return;
    }
    this.at(0);
    const { rows, start } = this;
    const n = this.topics.length;
    for (let i = 0; i < n; ) {
      if (rows.isObject[start + i] === 1) {
        run.flush(sink);
        sink.value(rows.materialize(start + i, this.topics[i]!, this.partitions[i]!));
        i++;
        continue;
      }
      let end = i + 1;
      while (end < n && rows.isObject[start + end] === 0) end++;
      run.add(rows, start + i, start + end, this.topics, this.partitions, i, sink);
      i = end;
    }
  }

  /** Every row as a PartitionTranslation, made on the first call and kept (GroupTranslation.partitions). */
  listRows(): PartitionTranslation[] {
    if (this.list === null) this.list = this.topics.map((topic, i) => this.rows.materialize(this.at(i), topic, this.partitions[i]!));
    return this.list;
  }

  /**
   * Row `i`'s place in the flow's columns. The columns are reused two cycles later (FlowRowsState.takeRows): a reader
   * holding a model that long (a request of role collector outliving two poll intervals) gets this error, not another
   * cycle's numbers.
   */
  private at(i: number): number {
    if (this.rows.generation !== this.generation) throw new ReusedRowsError();
    return this.start + i;
  }
}

/** A group's rows read after a later cycle reused their columns. */
export class ReusedRowsError extends Error {
  constructor() {
    super("this translation's rows were reused by a later cycle (the model read is over a cycle old): read the latest model");
    this.name = "ReusedRowsError";
  }
}

/** A reader over rows that are objects already (a group decoded from the read model's text, a hand-built one). */
class ObjectGroupRows implements GroupRowReader {
  readonly rowsIdentity = null;

  constructor(private readonly rows: readonly PartitionTranslation[]) {}

  get length(): number {
    return this.rows.length;
  }

  topic(i: number): string {
    return this.rows[i]!.topic;
  }

  partition(i: number): number {
    return this.rows[i]!.partition;
  }

  checkpoint(i: number): PartitionTranslation["checkpoint"] {
    return this.rows[i]!.checkpoint;
  }

  isCheckpointOwed(i: number): boolean {
    return readOwedDownstream(this.rows[i]!) !== null;
  }

  checkpointUpstream(i: number): number {
    return readNumber(this.rows[i]!.checkpoint?.upstream);
  }

  checkpointDownstream(i: number): number {
    return readNumber(this.rows[i]!.checkpoint?.downstream);
  }

  checkpointReadAt(i: number): number {
    return this.rows[i]!.checkpoint?.at ?? Number.NaN;
  }

  isSkipping(i: number): boolean {
    return isSkipping(this.rows[i]!);
  }

  hasCheckpoint(): boolean {
    return this.rows.some((p) => p.checkpoint !== null);
  }

  row(i: number): PartitionTranslation {
    return this.rows[i]!;
  }

  sample(i: number, group: string): RowSample {
    return sampleRow(group, this.rows[i]!);
  }
}

/** An offset as a number (NaN when absent; rounded beyond 2^53, where Number.isSafeInteger tells). */
function readNumber(offset: bigint | undefined): number {
  return offset === undefined ? Number.NaN : Number(offset);
}

/**
 * Where a group translate-flow.ts made holds its columns: a symbol-keyed property that is not enumerable, so JSON, the
 * read model's codec, the replay digest and deep equality see the group as it always was.
 */
const columnsKey = Symbol("translation-rows");

/** GroupTranslation.partitions of a group made by createColumnGroup: its rows, made from its columns on first read. */
function listColumnRows(this: { [columnsKey]: ColumnGroupRows }): PartitionTranslation[] {
  return this[columnsKey].listRows();
}

const partitionsAccessor: PropertyDescriptor = { get: listColumnRows, enumerable: true, configurable: true };

/**
 * The group of `head` whose rows are read from `rows`, with `totals`. Its properties are those of an object literal
 * with a `partitions` getter (in that order), and it is made so that V8 keeps it in fast mode: a literal with a getter,
 * or a data property turned into one, is a dictionary-mode object (hundreds of bytes each, 9,000 groups a cycle).
 */
export function createColumnGroup(
  head: Pick<GroupTranslation, "group" | "groupType" | "state" | "members" | "unknown">,
  rows: ColumnGroupRows,
  totals: TranslationTotals,
): GroupTranslation {
  Object.defineProperty(head, "partitions", partitionsAccessor);
  const group = head as GroupTranslation;
  group.totals = totals;
  Object.defineProperty(group, columnsKey, { value: rows, enumerable: false });
  return group;
}

/** A reader of the group's rows: its columns when it has them, else its `partitions`. */
export function readGroupRows(group: { partitions: readonly PartitionTranslation[] }): GroupRowReader {
  const columns = (group as { [columnsKey]?: ColumnGroupRows })[columnsKey];
  return columns ?? new ObjectGroupRows(group.partitions);
}

/** The columns of a group createColumnGroup made, else undefined (its rows are `partitions`). */
export function findColumnGroupRows(group: { partitions: readonly PartitionTranslation[] }): ColumnGroupRows | undefined {
  return (group as { [columnsKey]?: ColumnGroupRows })[columnsKey];
}

/** The group's rows where MM2's translation or latest checkpoint would skip records (isSkipping), in order. */
export function listSkippingRows(group: { partitions: readonly PartitionTranslation[] }): PartitionTranslation[] {
  const rows = readGroupRows(group);
  const skipping: PartitionTranslation[] = [];
  for (let i = 0; i < rows.length; i++) if (rows.isSkipping(i)) skipping.push(rows.row(i));
  return skipping;
}
