/**
 * A run of a flow's numeric translation rows written into the read model's encoder a column at a time: each property
 * of the rows (and of their translation, checkpoint, ideal and estimates) handed over as the run's values at once —
 * the flow's typed arrays where the property is one, else gathered into scratch arrays — instead of ~35 calls a row
 * (190,000 rows at 100,000 partitions). The encoder lays the values out as it would the rows made as objects
 * (TranslationRows.materialize), so the bytes are the same (tests/unit/pipeline/served-translations.test.ts).
 */
import { IdealCode, idealReadings } from "./ideal-codes";
import type { TranslationRows } from "./translation-rows";

/**
 * Where rows are written as the values of their properties instead of being made (the read model's encoder,
 * lib/pipeline columnar-codec.ts, implements it; its ColumnBlockSink describes each method): one value at a time, or
 * the values of rows [start, end) of a column at once.
 */
export interface RowBlockSink {
  value(value: unknown): void;
  int64s(values: Float64Array, start: number, end: number): void;
  nullableInt64s(values: Float64Array, start: number, end: number): void;
  primitives(values: ArrayLike<string> | ArrayLike<number>, start: number, end: number): void;
  strings(names: readonly string[], codes: Uint8Array, start: number, end: number): void;
  repeat(value: string | number | boolean, count: number): void;
  objects(
    shapes: readonly (readonly string[])[], shapeOf: Uint8Array, start: number, end: number,
  ): readonly RowBlockSink[];
}

/** The property names, in order, of the objects materialize makes (the encoder keys its shapes by these arrays). */
const rowShapes = [[
  "topic", "partition", "targetTopic", "committed", "sourceLogEnd", "groupLag", "translation", "checkpoint", "ideal",
  "reread", "checkpointReread", "failoverReread",
]];
const translatedShapes = [["kind", "downstream", "syncUpstream", "syncDownstream"]];
const checkpointShapes = [["upstream", "downstream", "at", "ageMs"]];
/** An ideal's shapes: exact, bracket, unknown (their names in order: kind, downstream, basis, low, high, reason). */
const idealShapes = [["kind", "downstream", "basis"], ["kind", "low", "high", "reason"], ["kind", "reason"]];
const idealKinds = ["exact", "bracket", "unknown"];
const estimateShapes = [["min", "max", "records", "skip"]];
const skipNames = ["none", "possible", "certain"];

/** Per IdealCode: the ideal's shape (index in idealShapes), and its basis (exact) or reason (bracket, unknown). */
const idealShapeOf = idealReadings.map((reading) => idealKinds.indexOf(reading.kind));
const idealWhy = idealReadings.map((reading) => reading.why);

/** A shapeOf that is no shape's index: the value is null. */
const none = 0xff;

/** Scratch columns of one run, grown to the longest run; the encoder copies what it is handed. */
class Scratch {
  zeros = new Uint8Array(0);
  shapeOf = new Uint8Array(0);
  codes = new Uint8Array(0);
  numbers: Float64Array[] = [];
  texts: string[] = [];

  reserve(n: number): void {
    if (this.zeros.length >= n) return;
    const size = Math.max(n, this.zeros.length * 2);
    this.zeros = new Uint8Array(size);
    this.shapeOf = new Uint8Array(size);
    this.codes = new Uint8Array(size);
    this.numbers = Array.from({ length: 4 }, () => new Float64Array(size));
  }
}

const scratch = new Scratch();

/**
 * Consecutive numeric rows of one TranslationRows, gathered across groups (a flow's groups' rows follow each other in
 * its columns) and written as one run: the encoder's calls cost per run, not per row.
 */
export class NumericRowRun {
  private rows: TranslationRows | null = null;
  private start = 0;
  private end = 0;
  /** Each group's part of the run: its rows' topics and partitions, from `from[k]` on, `count[k]` of them. */
  private readonly topics: (readonly string[])[] = [];
  private readonly partitions: (readonly number[])[] = [];
  private readonly from: number[] = [];
  private readonly count: number[] = [];

  /**
   * Adds numeric rows [start, end) of `rows`, named by `topics` and `partitions` from `at` on; the run so far is
   * written first if they do not follow it.
   */
  add(
    rows: TranslationRows,
    start: number,
    end: number,
    topics: readonly string[],
    partitions: readonly number[],
    at: number,
    sink: RowBlockSink,
  ): void {
    if (rows !== this.rows || start !== this.end) {
      this.flush(sink);
      this.rows = rows;
      this.start = start;
    }
    this.end = end;
    this.topics.push(topics);
    this.partitions.push(partitions);
    this.from.push(at);
    this.count.push(end - start);
  }

  /** Writes the run's rows into `sink` (before any other value is written into it) and empties the run. */
  flush(sink: RowBlockSink): void {
    if (this.rows !== null) writeNumericRows(this.rows, this.start, this.end, this, sink);
    this.rows = null;
    this.topics.length = 0;
    this.partitions.length = 0;
    this.from.length = 0;
    this.count.length = 0;
  }

  /** Writes the run's topics or partitions into `sink`, a group's part at a time. */
  writeNames(names: "topics" | "partitions", sink: RowBlockSink): void {
    const all = this[names];
    for (let k = 0; k < all.length; k++) sink.primitives(all[k]!, this.from[k]!, this.from[k]! + this.count[k]!);
  }
}

/**
 * Writes rows [start, end) of `rows`, all numeric (isObject 0), as materialize would make them; `run` names them.
 */
function writeNumericRows(
  rows: TranslationRows,
  start: number,
  end: number,
  run: NumericRowRun,
  sink: RowBlockSink,
): void {
  const n = end - start;
  scratch.reserve(n);
  const row = sink.objects(rowShapes, scratch.zeros, 0, n);
  run.writeNames("topics", row[0]!);
  run.writeNames("partitions", row[1]!);
  const targets = scratch.texts;
  targets.length = n;
  for (let i = 0; i < n; i++) targets[i] = rows.targetTopicOf(start + i);
  row[2]!.primitives(targets, 0, n);
  row[3]!.int64s(rows.committed, start, end);
  // A numeric row's log end is its partition's (NaN: unknown) and within ±2^52 (setNumericRow): the lag is exact.
  row[4]!.nullableInt64s(rows.logEnd, start, end);
  const lag = scratch.numbers[0]!;
  for (let i = 0; i < n; i++) {
    const logEnd = rows.logEnd[start + i]!;
    const committed = rows.committed[start + i]!;
    lag[i] = Number.isNaN(logEnd) ? Number.NaN : logEnd > committed ? logEnd - committed : 0;
  }
  row[5]!.nullableInt64s(lag, 0, n);
  const translation = row[6]!.objects(translatedShapes, scratch.zeros, 0, n);
  translation[0]!.repeat("translated", n);
  translation[1]!.int64s(rows.translated, start, end);
  translation[2]!.int64s(rows.syncUpstream, start, end);
  translation[3]!.int64s(rows.syncDownstream, start, end);
  writeCheckpoints(rows, start, n, row[7]!);
  writeIdeals(rows, start, n, row[8]!);
  writeEstimates(rows, start, n, "translation", row[9]!);
  writeEstimates(rows, start, n, "checkpoint", row[10]!);
  writeEstimates(rows, start, n, "failover", row[11]!);
}

/** The rows' latest checkpoints (null without one); its offsets are the row's checkpoint columns, exact. */
function writeCheckpoints(rows: TranslationRows, start: number, n: number, sink: RowBlockSink): void {
  const { shapeOf } = scratch;
  const [upstream, downstream, at, age] = scratch.numbers as [Float64Array, Float64Array, Float64Array, Float64Array];
  let present = 0;
  for (let i = 0; i < n; i++) {
    const r = start + i;
    const cp = rows.checkpoints[r];
    shapeOf[i] = cp === undefined ? none : 0;
    if (cp === undefined) continue;
    upstream[present] = rows.checkpointUpstream[r]!;
    downstream[present] = rows.checkpointDownstream[r]!;
    at[present] = cp.at;
    age[present++] = Math.max(0, rows.now - cp.at);
  }
  const checkpoint = sink.objects(checkpointShapes, shapeOf, 0, n);
  checkpoint[0]!.int64s(upstream, 0, present);
  checkpoint[1]!.int64s(downstream, 0, present);
  checkpoint[2]!.primitives(at, 0, present);
  checkpoint[3]!.primitives(age, 0, present);
}

/** The rows' ideal positions (materialize's readIdeal). */
function writeIdeals(rows: TranslationRows, start: number, n: number, sink: RowBlockSink): void {
  const { shapeOf, codes } = scratch;
  const [exact, low, high] = scratch.numbers as [Float64Array, Float64Array, Float64Array];
  const why = scratch.texts;
  why.length = 0;
  let exacts = 0;
  let brackets = 0;
  for (let i = 0; i < n; i++) {
    const r = start + i;
    const code = rows.ideal[r]!;
    const shape = idealShapeOf[code]!;
    shapeOf[i] = shape;
    codes[i] = code;
    if (shape === 0) exact[exacts++] = rows.low[r]!;
    else if (shape === 1) {
      low[brackets] = rows.low[r]!;
      high[brackets++] = rows.high[r]!;
    }
  }
  const ideal = sink.objects(idealShapes, shapeOf, 0, n);
  ideal[0]!.strings(idealKinds, shapeOf, 0, n);
  ideal[1]!.int64s(exact, 0, exacts);
  // The basis (exact rows) and the reason (the others) are columns of their own, each in row order.
  for (let i = 0; i < n; i++) if (shapeOf[i] === 0) why.push(idealWhy[codes[i]!]!);
  ideal[2]!.primitives(why, 0, why.length);
  ideal[3]!.int64s(low, 0, brackets);
  ideal[4]!.int64s(high, 0, brackets);
  why.length = 0;
  for (let i = 0; i < n; i++) if (shapeOf[i] !== 0) why.push(idealWhy[codes[i]!]!);
  ideal[5]!.primitives(why, 0, why.length);
}

/**
 * The rows' re-read estimates (materialize's estimate) from MM2's translation, from the latest checkpoint (null
 * without one), or from where a failover would start (the checkpoint, else the translation); null where the ideal
 * position is unknown.
 */
function writeEstimates(
  rows: TranslationRows,
  start: number,
  n: number,
  from: "translation" | "checkpoint" | "failover",
  sink: RowBlockSink,
): void {
  const { shapeOf, codes } = scratch;
  const [min, max] = scratch.numbers as [Float64Array, Float64Array];
  let present = 0;
  for (let i = 0; i < n; i++) {
    const r = start + i;
    const hasCheckpoint = rows.checkpoints[r] !== undefined;
    if (rows.ideal[r] === IdealCode.UNKNOWN_BEFORE_FIRST_SYNC || (from === "checkpoint" && !hasCheckpoint)) {
      shapeOf[i] = none;
      continue;
    }
    shapeOf[i] = 0;
    // materialize takes the translation where the checkpoint is at it: the same number.
    const offset = from === "translation" || !hasCheckpoint ? rows.translated[r]! : rows.checkpointDownstream[r]!;
    const low = rows.low[r]! - offset;
    const high = rows.high[r]! - offset;
    min[present] = low;
    max[present] = high;
    codes[present++] = high < 0 ? 2 : low < 0 ? 1 : 0;
  }
  const estimate = sink.objects(estimateShapes, shapeOf, 0, n);
  estimate[0]!.int64s(min, 0, present);
  estimate[1]!.int64s(max, 0, present);
  estimate[2]!.int64s(max, 0, present);
  estimate[3]!.strings(skipNames, codes, 0, present);
}
