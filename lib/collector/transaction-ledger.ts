/**
 * The transaction ledger: for each source partition on which transaction markers were seen, which
 * offsets held committed data, aborted data or markers. DATA_LOSS needs it to count what a purge
 * removed (deleted offsets cannot be read any more), ABORTED_RECORDS_COPIED to count the aborted
 * records MM2 passed. Walked forward from a persisted cursor, read_committed (transaction-ledger-read.ts);
 * this file holds the state and its pure updates.
 */
import { z } from "zod";
import type { FetchedTransactions } from "@/lib/kafka";
import type { LedgerSegment, TransactionLedgerView } from "./types";

/** One partition's ledger: the view plus what the next updates need. */
export interface PartitionLedger extends TransactionLedgerView {
  topicId: string | null;
  /** MM2's lowest position over the flows copying the partition, per cycle, for `windowGraceMs` (oldest first). */
  floors: { at: number; position: bigint }[];
  /** The last read returned no batch below the last stable offset (KIP-74): put it first in the next Fetch. */
  stuck: boolean;
}

/** What the ledger learns about a source partition from this cycle's snapshot. */
export interface LedgerPartitionState {
  topicId: string | null;
  logStart: bigint;
  logEnd: bigint;
}

/**
 * How long window segments are kept after every flow's MM2 position passed them: DATA_LOSS counts
 * a loss from the cycle MM2 skipped it, or later when its offset sync or its partition's data
 * arrives late (an unknown partition is judged once known again); five minutes covers that.
 */
export const windowGraceMs = 5 * 60_000;
/**
 * Bounds per partition (persisted every cycle): the oldest segments go first, aborted ranges are
 * merged with their counts kept. A window holds about two segments per transaction (records,
 * marker): 2,000 is five minutes of a transaction every 300 ms; beyond that the oldest part of a
 * loss is reported as unknown, never guessed.
 */
const maxWindowSegments = 2_000;
const maxAbortedSegments = 1_000;

/** A new ledger, starting at the log start: every aborted record still in the log is counted. */
export function createPartitionLedger(cluster: string, topic: string, partition: number, state: LedgerPartitionState): PartitionLedger {
  const from = state.logStart;
  const { topicId, logEnd } = state;
  return { cluster, topic, partition, topicId, readFrom: from, cursor: from, logEnd, aborted: [], windowFrom: from, window: [], floors: [], stuck: false };
}

/**
 * Brings a ledger in line with the partition's offsets before reading: a new topic ID or a log end
 * below the cursor (a recreated topic, an unclean truncation) starts it over; a log start above
 * the cursor skips the deleted offsets, which stay "unread" (a loss there is partly unknown).
 */
export function alignPartitionLedger(ledger: PartitionLedger, state: LedgerPartitionState): PartitionLedger {
  const reset = (ledger.topicId !== null && state.topicId !== null && ledger.topicId !== state.topicId) || state.logEnd < ledger.cursor;
  if (reset) return createPartitionLedger(ledger.cluster, ledger.topic, ledger.partition, state);
  const next = { ...ledger, topicId: state.topicId ?? ledger.topicId, logEnd: state.logEnd };
  if (state.logStart <= ledger.cursor) return next;
  const unread: LedgerSegment = { kind: "unread", first: ledger.cursor, last: state.logStart - 1n, records: state.logStart - ledger.cursor };
  return { ...next, cursor: state.logStart, window: appendSegments(next.window, [unread]), stuck: false };
}

/**
 * Classifies the batches of one read_committed Fetch the way Kafka's consumer does
 * (clients/.../consumer/internals/CompletedFetch.java, nextFetchedRecord): before each batch with
 * a producer id, the aborted transactions beginning at or before its last offset put their
 * producer in the aborted set; a control batch with an ABORT marker takes its producer out again;
 * a transactional data batch whose producer is in the set is aborted. The broker lists every
 * aborted transaction overlapping the fetched range, also one that began before the fetch offset,
 * so each read classifies on its own.
 */
export function classifyBatches(read: FetchedTransactions, from: bigint): LedgerSegment[] {
  const pending = [...read.abortedTransactions].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const abortedProducers = new Set<bigint>();
  const segments: LedgerSegment[] = [];
  for (const batch of read.batches) {
    if (batch.producerId >= 0n) {
      while (pending.length > 0 && pending[0]!.firstOffset <= batch.lastOffset) abortedProducers.add(pending.shift()!.producerId);
      if (batch.control === "abort") abortedProducers.delete(batch.producerId);
    }
    const first = batch.baseOffset > from ? batch.baseOffset : from;
    if (batch.control !== null) segments.push({ kind: "marker", first, last: batch.lastOffset, records: BigInt(batch.records) });
    else {
      const aborted = batch.transactional && abortedProducers.has(batch.producerId);
      segments.push({ kind: aborted ? "aborted" : "data", first, last: batch.lastOffset, records: BigInt(batch.records) });
    }
  }
  return segments;
}

/**
 * Applies one read from `ledger.cursor`: the classified batches extend the window (and the aborted
 * list); the cursor moves one past the last batch. No batch although the cursor is below the last
 * stable offset means the next batch is larger than the byte budget and this partition was not
 * first in the response (KIP-74): it is marked `stuck`, to go first next time.
 */
export function applyLedgerRead(ledger: PartitionLedger, read: FetchedTransactions): PartitionLedger {
  const segments = classifyBatches(read, ledger.cursor);
  const last = segments.at(-1);
  if (last === undefined) return { ...ledger, stuck: ledger.cursor < read.lastStableOffset };
  return {
    ...ledger,
    cursor: last.last + 1n,
    window: appendSegments(ledger.window, segments),
    aborted: capAborted(appendSegments(ledger.aborted, segments.filter((s) => s.kind === "aborted"))),
    stuck: false,
  };
}

/**
 * Forgets what nothing needs any more: aborted ranges below the source log start (ABORTED_RECORDS_COPIED
 * resolves with them), window segments below the lowest MM2 position of the last `windowGraceMs`
 * (`position` null: unknown this cycle, nothing is recorded and the old floors stay).
 */
export function pruneLedger(ledger: PartitionLedger, logStart: bigint, position: bigint | null, now: number): PartitionLedger {
  const floors = [...ledger.floors.filter((f) => now - f.at < windowGraceMs), ...(position === null ? [] : [{ at: now, position }])];
  const floor = floors.reduce<bigint | null>((min, f) => (min === null || f.position < min ? f.position : min), null);
  let { window, windowFrom } = ledger;
  const dropped = floor === null ? [] : window.filter((s) => s.last < floor);
  const overflow = Math.max(0, window.length - dropped.length - maxWindowSegments);
  if (dropped.length + overflow > 0) {
    const cut = dropped.length + overflow;
    windowFrom = window[cut - 1]!.last + 1n;
    window = window.slice(cut);
  }
  const aborted = ledger.aborted.filter((s) => s.last >= logStart);
  return { ...ledger, floors, window, windowFrom, aborted };
}

/** The ledger as the snapshot carries it. */
export function viewLedger(ledger: PartitionLedger): TransactionLedgerView {
  const { cluster, topic, partition, readFrom, cursor, logEnd, aborted, windowFrom, window } = ledger;
  return { cluster, topic, partition, readFrom, cursor, logEnd, aborted, windowFrom, window };
}

/** What a ledger knows of the offsets `first`–`last`: records by kind, and the parts it never classified. */
export interface LedgerCounts {
  /** Data records outside aborted transactions: committed, or written without a transaction. */
  committed: bigint;
  aborted: bigint;
  markers: bigint;
  /** Sub-ranges whose contents the ledger does not know (not read yet, skipped, or forgotten). */
  unknown: { first: bigint; last: bigint }[];
}

/**
 * Counts the offsets `first`–`last` from a ledger view. A segment partly inside the range counts
 * its overlap when it is dense (one record per offset); otherwise the overlap is unknown.
 */
export function countLedgerRange(view: TransactionLedgerView, first: bigint, last: bigint): LedgerCounts {
  const counts: LedgerCounts = { committed: 0n, aborted: 0n, markers: 0n, unknown: [] };
  const addUnknown = (a: bigint, b: bigint) => {
    const prev = counts.unknown.at(-1);
    if (prev !== undefined && prev.last + 1n >= a) prev.last = b > prev.last ? b : prev.last;
    else counts.unknown.push({ first: a, last: b });
  };
  if (first < view.windowFrom) addUnknown(first, last < view.windowFrom ? last : view.windowFrom - 1n);
  for (const s of view.window) {
    const a = s.first > first ? s.first : first;
    const b = s.last < last ? s.last : last;
    if (a > b) continue;
    const whole = a === s.first && b === s.last;
    const dense = s.records === s.last - s.first + 1n;
    if (s.kind === "unread" || (!whole && !dense)) addUnknown(a, b);
    else {
      const n = whole ? s.records : b - a + 1n;
      if (s.kind === "data") counts.committed += n;
      else if (s.kind === "aborted") counts.aborted += n;
      else counts.markers += n;
    }
  }
  if (last >= view.cursor) addUnknown(first > view.cursor ? first : view.cursor, last);
  return counts;
}

/** Appends segments, merging a segment into the previous one when it is contiguous and of the same kind. */
function appendSegments(list: readonly LedgerSegment[], added: readonly LedgerSegment[]): LedgerSegment[] {
  const out = [...list];
  for (const s of added) {
    const prev = out.at(-1);
    const contiguous = prev !== undefined && prev.kind === s.kind && prev.last + 1n === s.first;
    if (contiguous) out[out.length - 1] = { ...prev, last: s.last, records: prev.records + s.records };
    else out.push(s);
  }
  return out;
}

/** Keeps at most `maxAbortedSegments` aborted ranges by merging the oldest: the count stays exact, the range coarser. */
function capAborted(list: LedgerSegment[]): LedgerSegment[] {
  const out = [...list];
  while (out.length > maxAbortedSegments) {
    const [a, b] = out.splice(0, 2) as [LedgerSegment, LedgerSegment];
    out.unshift({ kind: "aborted", first: a.first, last: b.last, records: a.records + b.records });
  }
  return out;
}

const offset = z.string().regex(/^-?\d+$/).transform((v) => BigInt(v));
const segmentSchema = z.object({ kind: z.enum(["data", "aborted", "marker", "unread"]), first: offset, last: offset, records: offset });
const ledgerSchema = z.object({
  cluster: z.string(),
  topic: z.string(),
  partition: z.number(),
  topicId: z.string().nullable(),
  readFrom: offset,
  cursor: offset,
  logEnd: offset,
  aborted: z.array(segmentSchema),
  windowFrom: offset,
  window: z.array(segmentSchema),
  floors: z.array(z.object({ at: z.number(), position: offset })),
  stuck: z.boolean(),
});

/** The ledgers as JSON (offsets as decimal strings), for the store. */
export function serializeLedgers(ledgers: ReadonlyMap<string, PartitionLedger>): string {
  return JSON.stringify([...ledgers.values()], (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

/**
 * Ledgers read back from the store. Anything unreadable gives no ledgers and the reason: each
 * partition then starts again at its log start (slower, never wrong).
 */
export function parseLedgers(json: string | null): { ledgers: PartitionLedger[]; error: string | null } {
  if (json === null) return { ledgers: [], error: null };
  try {
    const parsed = z.array(ledgerSchema).safeParse(JSON.parse(json));
    return parsed.success ? { ledgers: parsed.data, error: null } : { ledgers: [], error: z.prettifyError(parsed.error) };
  } catch (err) {
    return { ledgers: [], error: err instanceof Error ? err.message : String(err) };
  }
}
