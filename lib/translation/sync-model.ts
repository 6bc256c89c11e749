/**
 * Replays a flow partition's offset-sync history into lib/mm2's OffsetSyncStore model the way
 * MirrorCheckpointTask fills its own store, and maps offsets exactly from the full history.
 *
 * START-UP ASSUMPTION (what the replay models). MirrorCheckpointTask.start runs
 * `offsetSyncStore.start(!checkpointsReadOk)`: it reads the whole offset-syncs topic, then sets
 * readToEnd. Syncs read during that initial load either wipe the partition's 64 slots
 * (`initializationMustReadToEnd` = true: Kafka < 3.7.1, or the task could not read its previous
 * checkpoints) or go through the normal update (3.7.1 / 3.8.0+ after reading its checkpoints).
 * By default we assume the task's store went through the normal update for EVERY sync of our
 * history: true when the task started before the first sync we hold, or when it (re)started later
 * on 3.7.1+/3.8+ having read its checkpoints while the syncs topic still held everything our
 * history holds (no compaction in between). Our history is the syncs topic read from its log start,
 * so both give the same 64 slots. If the task restarted with the wiping flag while the topic held
 * the first N syncs of our history, pass `{ initializationMustReadToEnd: true, syncsReadAtStartup: N }`:
 * only the N-th survives the load, as in Java.
 */
import { readPointHistory, type SyncHistory } from "@/lib/collector/sync-history";
import { createOffsetSyncStore, type DownstreamMapping, mapBetweenSyncs, OffsetSyncStore, type SyncPoint, type TopicPartition } from "@/lib/mm2";
import { SyncSlots } from "./sync-slots";
import type { IdealOffset } from "./types";
import { growArray, growCapacity } from "@/lib/collector/grown-array";

/** How MirrorCheckpointTask's store was loaded (see the module comment). */
export interface ReplayOptions {
  /** Java `initializationMustReadToEnd`; default false (history kept through start-up). */
  initializationMustReadToEnd?: boolean;
  /** How many syncs of the history the task read during its initial load; default 0. */
  syncsReadAtStartup?: number;
}

/** Feeds `history` (oldest first) into a fresh model exactly as MirrorCheckpointTask would. */
export function replaySyncHistory(tp: TopicPartition, history: readonly SyncPoint[], options: ReplayOptions = {}): OffsetSyncStore {
  const store = createOffsetSyncStore({ initializationMustReadToEnd: options.initializationMustReadToEnd ?? false });
  const atStartup = Math.min(Math.max(options.syncsReadAtStartup ?? 0, 0), history.length);
  history.forEach((sync, index) => {
    if (index === atStartup) store.markReadToEnd();
    store.addSync({ topic: tp.topic, partition: tp.partition, upstream: sync.upstream, downstream: sync.downstream });
  });
  if (!store.isReadToEnd()) store.markReadToEnd();
  return store;
}

/** Cycles a partition's model survives without a lookup (a group that briefly disappears keeps its model). */
const unusedCyclesKept = 60;

/**
 * Keeps what the translation holds of each flow between cycles (translate-flow.ts: its dense partition index, group
 * layouts and sync models, FlowRowsState), and counts the cycles a model or a flow went without a lookup.
 */
export class SyncModelCache {
  private readonly flows = new Map<string, { state: unknown; usedInCycle: number }>();
  private cycle = 0;

  /**
   * `reusesRows`: the caller translates each flow once a cycle and reads a cycle's translations only until the next
   * cycle's are published (lib/pipeline/flow-translator.ts), so a translation's columns are reused two cycles later
   * (FlowRowsState.takeRows); without it every translation keeps its own.
   */
  constructor(
    readonly options: ReplayOptions = {},
    readonly reusesRows = false,
  ) {}

  /** The cycle count (endCycle calls so far): when a model was last looked up. */
  get currentCycle(): number {
    return this.cycle;
  }

  /**
   * What the translation keeps of one flow between cycles, made by `create` on the flow's first lookup and dropped
   * after 60 cycles without one.
   */
  lookupFlow<T>(flowId: string, create: () => T): T {
    let held = this.flows.get(flowId);
    if (held === undefined) this.flows.set(flowId, (held = { state: create(), usedInCycle: this.cycle }));
    held.usedInCycle = this.cycle;
    return held.state as T;
  }

  /** Ends a cycle's lookups: drops the flows not looked up for 60 cycles. */
  endCycle(): void {
    for (const [id, held] of this.flows) if (this.cycle - held.usedInCycle >= unusedCyclesKept) this.flows.delete(id);
    this.cycle++;
  }
}

/**
 * One flow's replayed OffsetSyncStore models (sync-slots.ts), by dense partition index, fed only the syncs appended to
 * each partition's history since its last lookup (the collector's histories only grow, and are trimmed at the front
 * past 20,000 syncs; a model finds its place again by the count of syncs ever appended, SyncHistory.dropped + length). Without it
 * every cycle would replay up to 20,000 syncs per partition. Also keeps where each history's latest epoch starts
 * (lib/mm2 selectLatestEpoch: the syncs from there on, each a repeat of the one before or above it in both offsets).
 */
export class FlowSyncModels {
  readonly slots = new SyncSlots();
  /** Per partition: syncs of `histories[p]` consumed, the cycle of its last lookup (−1: no model). */
  private consumed = new Int32Array(0);
  private usedInCycle = new Int32Array(0);
  private epochStarts = new Int32Array(0);
  /**
   * Per partition: the syncs ever appended to its history as of its last update (where to resume in the same
   * history), the history, and the last sync consumed (where to resume in another array holding the same points).
   */
  private appended = new Float64Array(0);
  private readonly histories: (SyncHistory | null)[] = [];
  private readonly lastSyncs: (SyncPoint | null)[] = [];

  constructor(private readonly options: ReplayOptions = {}) {}

  /**
   * Brings partition `p`'s model up to `history` (not empty) in cache cycle `cycle`; a model not looked up for 60
   * cycles is replayed afresh. Throws a RangeError for a sync outside the int64 range, as OffsetSyncStore.addSync.
   * Whether the model changed (false: it was up to date).
   */
  update(p: number, history: SyncHistory, cycle: number): boolean {
    this.reserve(p);
    const length = history.length;
    const appended = history.dropped + length;
    const held = this.usedInCycle[p]! >= 0 && cycle - this.usedInCycle[p]! <= unusedCyclesKept;
    this.usedInCycle[p] = cycle;
    // The usual partition took no sync since its last lookup: the same history, no sync appended.
    if (held && this.histories[p] === history && this.appended[p] === appended) return false;
    const resumeAt = held ? this.findResumeIndex(p, history) : -1;
    if (resumeAt < 0) this.replay(p, history);
    else this.resume(p, history, resumeAt);
    this.consumed[p] = length;
    this.appended[p] = appended;
    this.histories[p] = history;
    this.lastSyncs[p] = length === 0 ? null : history.point(length - 1);
    return true;
  }

  /** Where partition `p`'s latest epoch starts in the history of its last update. */
  epochStart(p: number): number {
    return this.epochStarts[p]!;
  }

  /** Feeds the whole history into a cleared model exactly as MirrorCheckpointTask would (replaySyncHistory). */
  private replay(p: number, history: SyncHistory): void {
    const mustReadToEnd = this.options.initializationMustReadToEnd ?? false;
    const atStartup = Math.min(Math.max(this.options.syncsReadAtStartup ?? 0, 0), history.length);
    this.slots.clear(p);
    for (let i = 0; i < history.length; i++) this.feed(p, history, i, mustReadToEnd && i < atStartup);
    this.epochStarts[p] = extendEpochStart(history, 0, 0);
  }

  /**
   * Feeds the syncs from `resumeAt` on. After a trim at the front the epoch's start moves with the syncs (a start
   * trimmed away: the epoch starts with the history, as selectLatestEpoch over it would), then continues over the new
   * syncs. A trim with nothing appended (the collector trims only when it appends) keeps the start where it is.
   */
  private resume(p: number, history: SyncHistory, resumeAt: number): void {
    for (let i = resumeAt; i < history.length; i++) this.feed(p, history, i, false);
    const start = Math.max(0, this.epochStarts[p]! - (this.consumed[p]! - resumeAt));
    this.epochStarts[p] = extendEpochStart(history, resumeAt, start);
  }

  private feed(p: number, history: SyncHistory, i: number, wipe: boolean): void {
    const upstream = history.upstream(i);
    const downstream = history.downstream(i);
    // Only a Map's points reach past 2^53 (the collector's store refuses them): the exact check on their bigints.
    if (!Number.isSafeInteger(upstream) || !Number.isSafeInteger(downstream)) {
      const sync = history.point(i);
      if (!isLong(sync.upstream) || !isLong(sync.downstream)) {
        throw new RangeError(`Offset sync ${sync.upstream}:${sync.downstream} is outside the int64 range`);
      }
    }
    this.slots.add(p, upstream, downstream, wipe);
  }

  /** Index of the first sync not yet consumed, or −1 when the history no longer continues the model's. */
  private findResumeIndex(p: number, history: SyncHistory): number {
    if (this.histories[p] === history) {
      const resumeAt = this.appended[p]! - history.dropped;
      return resumeAt >= 1 && resumeAt <= history.length ? resumeAt : -1;
    }
    // Another history: a new array of a Map holding the points consumed (the collector's store keeps one per partition).
    const last = this.lastSyncs[p];
    if (last === null || last === undefined) return -1;
    for (let i = history.length - 1; i >= 0; i--) if (history.point(i) === last) return i + 1;
    return -1;
  }

  private reserve(p: number): void {
    if (p < this.consumed.length) return;
    const size = growCapacity(p, this.consumed.length);
    this.consumed = growArray(this.consumed, size);
    this.usedInCycle = growArray(this.usedInCycle, size, -1);
    this.epochStarts = growArray(this.epochStarts, size);
    this.appended = growArray(this.appended, size);
    while (this.lastSyncs.length < size) this.lastSyncs.push(null);
    while (this.histories.length < size) this.histories.push(null);
  }
}

const longMin = -(2n ** 63n);
const longMax = 2n ** 63n - 1n;

/** Whether `value` fits a Java long (OffsetSyncStore.addSync's check). */
function isLong(value: bigint): boolean {
  return value >= longMin && value <= longMax;
}

/**
 * The latest epoch's start in `history` given its start `start` among history[0, from): selectLatestEpoch's left fold
 * continued over the syncs from `from` on, each compared with the one before it (a repeat of it, or above it in both
 * offsets, continues the epoch; anything else starts a new one). O(new syncs), not O(history).
 */
function extendEpochStart(history: SyncHistory, from: number, start: number): number {
  let at = start;
  for (let i = Math.max(from, 1); i < history.length; i++) {
    const previousUp = history.upstream(i - 1);
    const previousDown = history.downstream(i - 1);
    const up = history.upstream(i);
    const down = history.downstream(i);
    const exact = Number.isSafeInteger(up) && Number.isSafeInteger(down) && Number.isSafeInteger(previousUp) && Number.isSafeInteger(previousDown);
    if (exact ? !continuesEpoch(previousUp, previousDown, up, down) : !continuesEpochExactly(history.point(i - 1), history.point(i))) at = i;
  }
  return at;
}

/** A repeat of the sync before, or above it in both offsets: the epoch goes on (selectLatestEpoch). */
function continuesEpoch(previousUp: number, previousDown: number, up: number, down: number): boolean {
  return (up === previousUp && down === previousDown) || (up > previousUp && down > previousDown);
}

/** continuesEpoch on bigints: offsets beyond 2^53 (a Map's points only). */
function continuesEpochExactly(previous: SyncPoint, sync: SyncPoint): boolean {
  const repeat = sync.upstream === previous.upstream && sync.downstream === previous.downstream;
  return repeat || (sync.upstream > previous.upstream && sync.downstream > previous.downstream);
}

const dense = { denseDownstream: true } as const;
const notDense = { denseDownstream: false } as const;

/**
 * The ideal downstream position of `upstream` from the latest epoch (strictly increasing syncs).
 * Only the two syncs around the offset matter to mapUpstreamToDownstream, so they are found by
 * binary search and passed alone (O(log n) per lookup instead of re-selecting the epoch).
 * Beyond the newest sync the position is bounded above by newest.downstream + (upstream −
 * newest.upstream): each source offset yields at most one target record. `denseDownstream`
 * false (a target with transaction markers or other writers) keeps only what monotonicity
 * proves, so a plan built on it re-reads rather than skips.
 */
export function mapIdealOffset(epoch: readonly SyncPoint[], upstream: bigint, denseDownstream = true): IdealOffset {
  return mapIdealOffsetFrom(readPointHistory(epoch), 0, upstream, denseDownstream);
}

/**
 * mapIdealOffset over the latest epoch as it sits in a history: the syncs from `start` on (FlowSyncModels.epochStart),
 * where a repeat of the sync before it may follow a sync. The last sync at or before `upstream` has the same offsets
 * as the epoch's, and the one after it is above it (never a repeat), so the answer is the epoch's.
 */
export function mapIdealOffsetFrom(history: SyncHistory, start: number, upstream: bigint, denseDownstream = true): IdealOffset {
  if (history.length <= start) return { kind: "unknown", reason: "no-sync" };
  const index = findLastAtOrBeforeFrom(history, start, upstream);
  if (index < 0) return { kind: "unknown", reason: "before-first-sync" };
  const sync = history.point(index);
  const next = index + 1 < history.length ? history.point(index + 1) : undefined;
  // Beyond the newest sync (a busy group's usual place) the bounds are computed here: mapBetweenSyncs' open bracket
  // would be one more object per row, 190,000 rows a cycle at 100,000 partitions, for the same answer.
  if (next === undefined && sync.upstream !== upstream) return boundBeyondNewest(sync, upstream);
  const mapped = mapBetweenSyncs(sync, next, upstream, denseDownstream ? dense : notDense);
  // An exact mapping has exactly an exact IdealOffset's fields.
  if (mapped.kind === "exact") return mapped;
  if (mapped.kind === "none") return { kind: "unknown", reason: mapped.reason };
  // A bounded bracket (about half the rows of a busy flow) has exactly a bracket IdealOffset's fields: no copy.
  if (isBoundedBracket(mapped)) return mapped;
  const high = mapped.high ?? sync.downstream + (upstream - sync.upstream);
  return mapped.low === high ? { kind: "exact", downstream: high, basis: "pinned-by-bounds" } : { kind: "bracket", low: mapped.low, high, reason: mapped.reason };
}

/** Index of the last sync of history[start, end) with upstream ≤ `offset` (non-decreasing upstream), or −1. */
function findLastAtOrBeforeFrom(history: SyncHistory, start: number, offset: bigint): number {
  const last = history.length - 1;
  const at = Number(offset);
  // Most offsets asked about (a group's committed offset) are at or past the newest sync: one comparison.
  if (isAtOrBefore(history, last, offset, at)) return last;
  let lo = start;
  let hi = last;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (isAtOrBefore(history, mid, offset, at)) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * Whether sync i's upstream is at or before `offset` (`at`: it as a number). A safe integer compares exactly with
 * the number of any bigint (beyond 2^53 the number stays beyond it); only a Map's points beyond 2^53 compare as bigints.
 */
function isAtOrBefore(history: SyncHistory, i: number, offset: bigint, at: number): boolean {
  const upstream = history.upstream(i);
  return Number.isSafeInteger(upstream) ? upstream <= at : history.point(i).upstream <= offset;
}

/** mapBetweenSyncs' `beyond-newest-sync` bracket (low: one past the sync) closed by one target record per source offset. */
function boundBeyondNewest(sync: SyncPoint, upstream: bigint): IdealOffset {
  const low = sync.downstream + 1n;
  const high = sync.downstream + (upstream - sync.upstream);
  return low === high ? { kind: "exact", downstream: high, basis: "pinned-by-bounds" } : { kind: "bracket", low, high, reason: "beyond-newest-sync" };
}

type BracketMapping = Extract<DownstreamMapping, { kind: "bracket" }>;

/** A bracket with both bounds, and two of them (equal bounds pin the offset: exact). */
function isBoundedBracket(mapped: BracketMapping): mapped is BracketMapping & { high: bigint } {
  return mapped.high !== null && mapped.low !== mapped.high;
}
