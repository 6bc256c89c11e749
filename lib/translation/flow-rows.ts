/**
 * The usual translation row computed on numbers (translate-flow.ts keeps the bigint path for every other row), and
 * what the translation keeps of a flow between cycles to find each row's partition and model without building
 * anything per row: dense partition indexes (flow-partition-index.ts) and each group's row layout.
 */
import type { GroupOffset } from "@/lib/collector/types";
import type { TopicPartition } from "@/lib/mm2";
import { readPointHistory, type SyncHistories, type SyncHistory } from "@/lib/collector/sync-history";
import { keepsHistories } from "@/lib/collector/sync-history-store";
import { CheckpointIndex } from "./checkpoint-index";
import { FlowPartitionPlacer } from "./flow-partition-index";
import { throwBeyondSafe, toSafeOffset } from "./sync-columns";
import type { SampleKeys } from "./sample-columns";
import { FlowSyncModels, type ReplayOptions, type SyncModelCache } from "./sync-model";
import { IdealCode } from "./ideal-codes";
import { SharedTranslations, TranslationRows } from "./translation-rows";
import { growArray, growCapacity } from "@/lib/collector/grown-array";

/**
 * A group's rows in their order (topic by localeCompare, then partition; a stable sort of the offsets as listed),
 * valid while the group lists the same topic-partitions in the same order.
 */
export interface GroupLayout {
  /** The group laid out. */
  group: string;
  /** The listed offsets' topics and partitions (what the layout is valid for). */
  listedTopics: readonly string[];
  listedPartitions: readonly number[];
  /** Row i is listed offset order[i]; its dense partition index is dense[i]. */
  order: Int32Array;
  dense: Int32Array;
  topics: readonly string[];
  partitions: readonly number[];
  usedInCycle: number;
  /** Per row, the position of its latest checkpoint in the checkpoint index's list (−1: none), of `generation`. */
  checkpointPositions: Int32Array;
  checkpointGeneration: number;
  /** The index's additionCount when the positions were read: a group that gained a checkpoint since reads them again. */
  checkpointAdditions: number;
}

/** The history of a partition without one. */
const noSyncs = readPointHistory([]);

/** What the translation keeps of one flow between cycles (in SyncModelCache.lookupFlow). */
export class FlowRowsState {
  readonly placer: FlowPartitionPlacer;
  /** The flow's checkpoint index, for a caller that keeps none of its own (only new checkpoints are set a cycle). */
  readonly checkpointIndex = new CheckpointIndex();
  /** The partitions' replayed OffsetSyncStore models and latest epochs, by dense index. */
  readonly models: FlowSyncModels;
  /** The translations the rows of one sync share, by dense index. */
  readonly shared = new SharedTranslations();
  private cycle = 0;
  /** Per dense index: the cycle its history and its model were last looked up in, and what was found. */
  private historyCycles = new Int32Array(0);
  private modelCycles = new Int32Array(0);
  /** Per dense index, this cycle: 0 no sync, 1 a model, 2 a model holding an offset beyond 2^53 (numbers refused). */
  private modelKinds = new Uint8Array(0);
  /**
   * Per dense index: the newest sync of its history as numbers, read when its model took a sync. Most committed offsets
   * are at or past it, and their ideal position needs no other sync: the row reads no history.
   */
  private newestUpstreams = new Float64Array(0);
  private newestDownstreams = new Float64Array(0);
  /**
   * Per dense index: the sync before the newest, when it is in the latest epoch and the epoch's upstream offsets are
   * within ±2^52 (NaN otherwise). An offset at or past it and before the newest lies between the two: its ideal
   * position reads no history either.
   */
  private previousUpstreams = new Float64Array(0);
  private previousDownstreams = new Float64Array(0);
  private readonly histories: (SyncHistory | undefined)[] = [];
  /**
   * The sync histories of the last cycle, and whether they keep each key's history object (keepsHistories: the
   * collector's store): a partition's history found once is then read by its dense index, with no lookup by key.
   */
  private historySource: SyncHistories | null = null;
  private historiesKept = false;
  private readonly layouts = new Map<string, GroupLayout>();
  /** The sample keys last made, and the layouts they were made for. */
  private sampleKeys: { layouts: readonly GroupLayout[]; keys: SampleKeys } | null = null;
  /** The group ids as listed at the last sortGroups, and the positions in their sorted order. */
  private listedGroups: string[] = [];
  private groupOrder: number[] = [];
  /** The rows of the last cycle (still read: its translation is published) and of the cycle before (free to reuse). */
  private lastRows: TranslationRows | null = null;
  private olderRows: TranslationRows | null = null;

  constructor(
    readonly flowId: string,
    replay: ReplayOptions = {},
  ) {
    this.placer = new FlowPartitionPlacer(flowId);
    this.models = new FlowSyncModels(replay);
  }

  /**
   * Starts a translation of the flow over `syncHistory`: models are brought up to date, and histories looked up again
   * once per partition, unless `syncHistory` is last cycle's and keeps its histories (then one found stays).
   */
  beginCycle(syncHistory: SyncHistories): void {
    this.cycle++;
    if (syncHistory === this.historySource) return;
    this.historySource = syncHistory;
    this.historiesKept = keepsHistories(syncHistory);
    this.histories.fill(undefined);
  }

  /** The partition's sync history this cycle (the collector's for its key; empty without one). */
  readHistory(index: number, syncHistory: SyncHistories): SyncHistory {
    if (this.historiesKept) {
      // The collector's store keeps a key's history object for its life: the one found before is the key's.
      const kept = this.histories[index];
      if (kept !== undefined && kept !== noSyncs) return kept;
    }
    this.reserve(index);
    if (this.historyCycles[index] !== this.cycle) {
      this.historyCycles[index] = this.cycle;
      this.histories[index] = syncHistory.get(this.placer.index.keyAt(index)) ?? noSyncs;
    }
    return this.histories[index]!;
  }

  /**
   * Whether the partition has a replayed model this cycle (false: no sync in its history), brought up to its history
   * once per cycle (FlowSyncModels.update, in `cache`'s cycle).
   */
  readModel(index: number, cache: SyncModelCache, syncHistory: SyncHistories): boolean {
    this.reserve(index);
    if (this.modelCycles[index] !== this.cycle) {
      const history = this.readHistory(index, syncHistory);
      this.modelCycles[index] = this.cycle;
      if (history.length === 0) {
        this.modelKinds[index] = 0;
      } else if (this.models.update(index, history, cache.currentCycle) || this.modelKinds[index] === 0) {
        // Looked for again only when the model changed: a slot beyond 2^53 stays until a sync clears it.
        this.modelKinds[index] = this.models.slots.findUnsafeRun(index) === null ? 1 : 2;
        this.newestUpstreams[index] = history.upstream(history.length - 1);
        this.newestDownstreams[index] = history.downstream(history.length - 1);
        this.notePreviousSync(index, history);
      }
    }
    return this.modelKinds[index] !== 0;
  }

  /**
   * readModel for the numbers: whether the partition has a model, throwing (toSafeOffset's error) when one of its slots
   * holds an offset beyond 2^53.
   */
  readExactModel(index: number, tp: TopicPartition, cache: SyncModelCache, syncHistory: SyncHistories): boolean {
    if (!this.readModel(index, cache, syncHistory)) return false;
    if (this.modelKinds[index] === 2) {
      const unsafe = this.models.slots.findUnsafeRun(index)!;
      const slots = this.models.slots;
      const value = unsafe.what === "upstream" ? slots.upstreamAt(unsafe.at) : slots.downstreamAt(unsafe.at);
      throwBeyondSafe(BigInt(value), this.flowId, tp, `offset sync ${unsafe.what}`);
    }
    return true;
  }

  /** The newest sync's upstream offset of partition `index`'s history, as of its model's last readModel. */
  newestUpstream(index: number): number {
    return this.newestUpstreams[index]!;
  }

  /** The newest sync's downstream offset, as newestUpstream. */
  newestDownstream(index: number): number {
    return this.newestDownstreams[index]!;
  }

  /** The upstream offset of the sync before the newest (previousUpstreams; NaN: the history is searched). */
  previousUpstream(index: number): number {
    return this.previousUpstreams[index]!;
  }

  /** The downstream offset of the sync before the newest, as previousUpstream. */
  previousDownstream(index: number): number {
    return this.previousDownstreams[index]!;
  }

  /**
   * Keeps the sync before the newest of partition `index`'s history when the latest epoch holds it. The epoch's upstream
   * offsets never decrease, so with its first and this one within ±2^52 every one the search compares is too:
   * the search would find this sync for any offset from it to the newest's.
   */
  private notePreviousSync(index: number, history: SyncHistory): void {
    const before = history.length - 2;
    const start = this.models.epochStart(index);
    const kept = before >= start && isWithinLimit(history.upstream(start)) && isWithinLimit(history.upstream(before));
    this.previousUpstreams[index] = kept ? history.upstream(before) : Number.NaN;
    this.previousDownstreams[index] = kept ? history.downstream(before) : Number.NaN;
  }

  /**
   * The columns for this cycle's rows (room for `capacity`, at time `now`). With `reuse`, the columns of the cycle
   * before last when they fit (neither too small nor more than twice too large): the caller translates the flow once a
   * cycle and lets go of a cycle's translation once the next one is published, so only the last cycle's columns may
   * still be read. 190,000 rows are 18 MB of columns, allocated and collected every cycle otherwise.
   */
  takeRows(capacity: number, now: number, reuse: boolean): TranslationRows {
    if (!reuse) return new TranslationRows(capacity, now, this.shared);
    const spare = this.olderRows;
    const fits = spare !== null && spare.capacity >= capacity && spare.capacity <= 2 * capacity;
    const rows = fits ? spare : new TranslationRows(capacity, now, this.shared);
    if (fits) rows.reuse(now);
    this.olderRows = this.lastRows;
    this.lastRows = rows;
    return rows;
  }

  /** The group's layout for `offsets` (its offsets at or above 0, as listed), made again when they moved. */
  readLayout(groupId: string, offsets: readonly GroupOffset[]): GroupLayout {
    const held = this.layouts.get(groupId);
    const layout = held !== undefined && isLaidOut(held, offsets) ? held : this.createLayout(groupId, offsets);
    if (layout !== held) this.layouts.set(groupId, layout);
    layout.usedInCycle = this.cycle;
    return layout;
  }

  /**
   * Where the latest checkpoint of each row of `layout` (group `groupId`) sits in `checkpoints`' list (−1: none),
   * looked up again only when the index was built again or the layout is new, and for the rows without one when the
   * group gained a checkpoint: a row reads its checkpoint by position.
   */
  readCheckpointPositions(layout: GroupLayout, groupId: string, checkpoints: CheckpointIndex): Int32Array {
    const sameGeneration = layout.checkpointGeneration === checkpoints.generation;
    if (sameGeneration && !checkpoints.addedSince(groupId, layout.checkpointAdditions)) return layout.checkpointPositions;
    const own = checkpoints.findGroup(groupId);
    const positions = layout.checkpointPositions;
    // Checkpoints added at the list's end moved none: only the rows without one look theirs up.
    for (let i = 0; i < positions.length; i++) {
      if (!sameGeneration || positions[i]! < 0) positions[i] = own?.get(layout.topics[i]!)?.get(layout.partitions[i]!) ?? -1;
    }
    layout.checkpointGeneration = checkpoints.generation;
    layout.checkpointAdditions = checkpoints.additionCount;
    return positions;
  }

  /**
   * The key columns of the samples of rows laid out by `layouts` (one per group, in row order), the same arrays as
   * last time when the groups were laid out by the same layouts: the store compares a write's keys with the last
   * write's by array first (lib/store series-batch.ts). Never changed once made.
   */
  readSampleKeys(layouts: readonly GroupLayout[]): SampleKeys {
    const held = this.sampleKeys;
    if (held !== null && held.layouts.length === layouts.length && held.layouts.every((l, k) => l === layouts[k])) return held.keys;
    let count = 0;
    for (const layout of layouts) count += layout.topics.length;
    const groups = new Array<string>(count);
    const topics = new Array<string>(count);
    const partitions = new Array<number>(count);
    let at = 0;
    for (const layout of layouts) {
      for (let i = 0; i < layout.topics.length; i++, at++) {
        groups[at] = layout.group;
        topics[at] = layout.topics[i]!;
        partitions[at] = layout.partitions[i]!;
      }
    }
    const keys = { groups, topics, partitions };
    this.sampleKeys = { layouts, keys };
    return keys;
  }

  /**
   * The groups by id (localeCompare, stable), sorted again only when the ids are not listed as last time: the
   * collector lists a cluster's groups in the same order cycle after cycle (27,000 groups at 300,000 partitions).
   */
  sortGroups<T extends { groupId: string }>(groups: readonly T[]): T[] {
    let same = groups.length === this.listedGroups.length;
    for (let i = 0; same && i < groups.length; i++) same = groups[i]!.groupId === this.listedGroups[i];
    if (!same) {
      this.listedGroups = groups.map((g) => g.groupId);
      const ids = this.listedGroups;
      this.groupOrder = ids.map((_, i) => i).sort((a, b) => ids[a]!.localeCompare(ids[b]!));
    }
    return this.groupOrder.map((i) => groups[i]!);
  }

  /** Forgets the layouts of groups not translated this cycle. */
  endCycle(): void {
    this.layouts.forEach((layout, group) => {
      if (layout.usedInCycle !== this.cycle) this.layouts.delete(group);
    });
  }

  /** Room for `index` in the per-partition arrays (grown by doubling; the JavaScript arrays stay packed). */
  private reserve(index: number): void {
    if (index < this.historyCycles.length) return;
    const size = growCapacity(index, this.historyCycles.length);
    this.historyCycles = growArray(this.historyCycles, size);
    this.modelCycles = growArray(this.modelCycles, size);
    this.modelKinds = growArray(this.modelKinds, size);
    this.newestUpstreams = growArray(this.newestUpstreams, size);
    this.newestDownstreams = growArray(this.newestDownstreams, size);
    this.previousUpstreams = growArray(this.previousUpstreams, size);
    this.previousDownstreams = growArray(this.previousDownstreams, size);
    while (this.histories.length < size) this.histories.push(undefined);
  }

  private createLayout(group: string, offsets: readonly GroupOffset[]): GroupLayout {
    const positions = offsets.map((_, i) => i);
    // Array.prototype.sort is stable: a topic-partition listed twice keeps its listed order, as the rows' sort did.
    positions.sort((a, b) => compareTopicPartitions(offsets[a]!, offsets[b]!));
    const index = this.placer.index;
    return {
      group,
      listedTopics: offsets.map((o) => o.topic),
      listedPartitions: offsets.map((o) => o.partition),
      order: Int32Array.from(positions),
      dense: Int32Array.from(positions, (i) => index.ensure(offsets[i]!.topic, offsets[i]!.partition)),
      topics: positions.map((i) => offsets[i]!.topic),
      partitions: positions.map((i) => offsets[i]!.partition),
      usedInCycle: this.cycle,
      checkpointPositions: new Int32Array(offsets.length),
      checkpointGeneration: -1,
      checkpointAdditions: 0,
    };
  }
}

function isLaidOut(layout: GroupLayout, offsets: readonly GroupOffset[]): boolean {
  if (layout.listedTopics.length !== offsets.length) return false;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i]!;
    if (layout.listedPartitions[i] !== o.partition || layout.listedTopics[i] !== o.topic) return false;
  }
  return true;
}

/** By topic (localeCompare; most neighbours share theirs), then partition number. */
export function compareTopicPartitions(a: { topic: string; partition: number }, b: { topic: string; partition: number }): number {
  return (a.topic === b.topic ? 0 : a.topic.localeCompare(b.topic)) || a.partition - b.partition;
}

/** Values a numeric row holds stay within ±2^52, so the difference of any two is exact (below 2^53). */
const numericLimit = 2 ** 52;

function isWithinLimit(value: number): boolean {
  return value <= numericLimit && value >= -numericLimit;
}

/**
 * Sets row `r` from numbers when it is the usual row — MM2's store is read to its end and holds a sync at or below the
 * committed offset — and every value stays within ±2^52; false (nothing set) otherwise: translate-flow.ts makes the
 * row with bigints. Throws when an offset is beyond 2^53 (toSafeOffset). The rules are translate-flow.ts's
 * translatePartition, translateFromSync (lib/mm2) and mapIdealOffset (sync-model.ts), on numbers. `p`: the
 * partition's dense index, whose model `state.readExactModel` brought up to `history` this cycle; `logEnd`: its source
 * log end from the flow's columns (NaN: unknown); `dense`: whether its target is dense (`targetDensityIssue` null,
 * from the columns' flags); `read`: the group's committed offset as read; `position`: where its
 * latest checkpoint sits in `checkpoints` (−1: none; its numbers are read from the index's columns); `groupReadAt`: when
 * the group was read (null: unknown).
 */
export function setNumericRow(
  rows: TranslationRows,
  r: number,
  state: FlowRowsState,
  p: number,
  history: SyncHistory,
  tp: TopicPartition,
  dense: boolean,
  logEnd: number,
  read: bigint,
  checkpoints: CheckpointIndex,
  position: number,
  groupReadAt: number | null,
): boolean {
  const models = state.models;
  const slots = models.slots;
  if (slots.countRuns(p) === 0 || history.length === 0) return false;
  const flow = state.flowId;
  const committedRead = toSafeOffset(read, flow, tp, "committed offset");
  const cp = position < 0 ? undefined : checkpoints.at(position);
  let checkpointUpstream = 0;
  let checkpointDownstream = 0;
  if (cp !== undefined) {
    checkpointUpstream = checkpoints.upstreamAt(position);
    checkpointDownstream = checkpoints.downstreamAt(position);
    // NaN: beyond 2^53, which toSafeOffset reports (naming the partition).
    if (Number.isNaN(checkpointUpstream)) toSafeOffset(cp.upstream, flow, tp, "checkpoint upstream offset");
    if (Number.isNaN(checkpointDownstream)) toSafeOffset(cp.downstream, flow, tp, "checkpoint downstream offset");
  }
  // A checkpoint written after the group was read may be for a later commit (translatePartition).
  const newer = cp !== undefined && checkpointUpstream > committedRead && groupReadAt !== null && checkpoints.readAt(position) > groupReadAt;
  const committed = newer ? checkpointUpstream : committedRead;
  // OffsetSyncStore.lookupLatestSync: the first slot at or before the offset, else the oldest (too old when above it).
  const at = slots.findRun(p, committed);
  const syncUpstream = slots.upstreamAt(at);
  if (syncUpstream > committed) return false;
  const syncDownstream = slots.downstreamAt(at);
  const translated = committed === syncUpstream ? syncDownstream : syncDownstream + 1;
  if (!locateRow(rows, r, state, p, history, committed, dense)) return false;
  const within = isWithinLimit(committed) && isWithinLimit(translated) && isWithinLimit(checkpointUpstream) && isWithinLimit(checkpointDownstream);
  if (!within || !(Number.isNaN(logEnd) || isWithinLimit(logEnd))) return false;
  rows.committed[r] = committed;
  rows.translated[r] = translated;
  rows.dense[r] = p;
  rows.syncUpstream[r] = syncUpstream;
  rows.syncDownstream[r] = syncDownstream;
  rows.checkpoints[r] = cp;
  rows.checkpointUpstream[r] = checkpointUpstream;
  rows.checkpointDownstream[r] = checkpointDownstream;
  if (cp !== undefined) rows.checkpointReadAt[r] = checkpoints.readAt(position);
  rows.logEnd[r] = logEnd;
  return true;
}

/**
 * Sets row `r`'s ideal position of `committed` (locateIdeal) from the partition's two newest syncs where the offset is
 * at or past the one before the newest (most rows), else from a search of its history.
 */
function locateRow(rows: TranslationRows, r: number, state: FlowRowsState, p: number, history: SyncHistory, committed: number, dense: boolean): boolean {
  const newestUpstream = state.newestUpstream(p);
  if (!isWithinLimit(newestUpstream)) return locateIdeal(rows, r, history, state.models.epochStart(p), committed, dense);
  if (newestUpstream <= committed) return locateFromNewest(rows, r, newestUpstream, state.newestDownstream(p), committed);
  // NaN (no such sync kept) compares false.
  if (state.previousUpstream(p) <= committed) {
    return locateBetween(rows, r, state.previousUpstream(p), state.previousDownstream(p), newestUpstream, state.newestDownstream(p), committed, dense);
  }
  return locateIdeal(rows, r, history, state.models.epochStart(p), committed, dense);
}

/**
 * mapIdealOffset on numbers: sets row `r`'s ideal position of `upstream` from the latest epoch, history[start, end)
 * (mapIdealOffsetFrom: a repeated sync is skipped by the search); false (the row is not numeric) when a sync or a
 * bound leaves ±2^52.
 */
function locateIdeal(rows: TranslationRows, r: number, history: SyncHistory, start: number, upstream: number, dense: boolean): boolean {
  const i = findLastAtOrBefore(history, start, upstream);
  if (i === -1) return setIdeal(rows, r, IdealCode.UNKNOWN_BEFORE_FIRST_SYNC, 0, 0);
  if (i === -2) return false;
  const syncUp = history.upstream(i);
  const syncDown = history.downstream(i);
  // Beyond the newest sync: bounded by one target record per source offset.
  if (i + 1 === history.length) return isWithinLimit(syncUp) && locateFromNewest(rows, r, syncUp, syncDown, upstream);
  return locateBetween(rows, r, syncUp, syncDown, history.upstream(i + 1), history.downstream(i + 1), upstream, dense);
}

/**
 * locateIdeal where `upstream` lies from the sync (`syncUp`, `syncDown`) to before the next one of the epoch (`nextUp`,
 * `nextDown`): mapBetweenSyncs on numbers.
 */
function locateBetween(rows: TranslationRows, r: number, syncUp: number, syncDown: number, nextUp: number, nextDown: number, upstream: number, dense: boolean): boolean {
  if (!isWithinLimit(syncUp) || !isWithinLimit(syncDown)) return false;
  if (syncUp === upstream) return setIdeal(rows, r, IdealCode.EXACT_SYNC, syncDown, syncDown);
  if (!isWithinLimit(nextUp) || !isWithinLimit(nextDown)) return false;
  const upstreamAdvance = nextUp - syncUp;
  const downstreamAdvance = nextDown - syncDown;
  if (!dense || downstreamAdvance > upstreamAdvance) {
    const low = syncDown + 1;
    return setIdeal(rows, r, low === nextDown ? IdealCode.EXACT_PINNED : IdealCode.BRACKET_DOWNSTREAM_GAP, low, nextDown);
  }
  const low = syncDown + 1 + Math.max(0, downstreamAdvance - 1 - (nextUp - upstream));
  const high = Math.min(nextDown, syncDown + (upstream - syncUp));
  if (low !== high) return setIdeal(rows, r, IdealCode.BRACKET_UPSTREAM_GAP, low, high);
  return setIdeal(rows, r, upstreamAdvance === downstreamAdvance ? IdealCode.EXACT_ONE_TO_ONE : IdealCode.EXACT_PINNED, low, high);
}

/**
 * locateIdeal where the newest sync (`syncUp`, `syncDown`; `syncUp` within ±2^52) is at or before `upstream`: the sync
 * itself, or bounded beyond it by one target record per source offset.
 */
function locateFromNewest(rows: TranslationRows, r: number, syncUp: number, syncDown: number, upstream: number): boolean {
  if (!isWithinLimit(syncDown)) return false;
  if (syncUp === upstream) return setIdeal(rows, r, IdealCode.EXACT_SYNC, syncDown, syncDown);
  const low = syncDown + 1;
  const high = syncDown + (upstream - syncUp);
  return setIdeal(rows, r, low === high ? IdealCode.EXACT_PINNED : IdealCode.BRACKET_BEYOND_NEWEST, low, high);
}

/**
 * Index of the last sync of history[start, end) with upstream ≤ `offset` (most offsets are at or past the newest
 * sync: one comparison), −1 before the first, −2 when a sync it compares is beyond ±2^52 (the bigint path decides).
 */
function findLastAtOrBefore(history: SyncHistory, start: number, offset: number): number {
  const last = history.length - 1;
  const newest = history.upstream(last);
  if (!isWithinLimit(newest)) return -2;
  if (newest <= offset) return last;
  let lo = start;
  let hi = last - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const up = history.upstream(mid);
    if (!isWithinLimit(up)) return -2;
    if (up <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

function setIdeal(rows: TranslationRows, r: number, code: number, low: number, high: number): boolean {
  if (!isWithinLimit(low) || !isWithinLimit(high)) return false;
  rows.ideal[r] = code;
  rows.low[r] = low;
  rows.high[r] = high;
  return true;
}
