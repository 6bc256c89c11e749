/**
 * The usual translation row computed on numbers (translate-flow.ts keeps the bigint path for every other row), and
 * what the translation keeps of a flow between cycles to find each row's partition and model without building
 * anything per row: dense partition indexes (flow-partition-index.ts) and each group's row layout.
 */
import type { CheckpointPoint, FlowPartition, GroupOffset } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import { CheckpointIndex } from "./checkpoint-index";
import { FlowPartitionPlacer } from "./flow-partition-index";
import { findLastNumberAtOrBefore, readSyncNumbers, type SyncNumbers, toSafeOffset } from "./sync-columns";
import type { SyncModel, SyncModelCache } from "./sync-model";
import { IdealCode, type TranslationRows } from "./translation-rows";

/**
 * A group's rows in their order (topic by localeCompare, then partition; a stable sort of the offsets as listed),
 * valid while the group lists the same topic-partitions in the same order.
 */
export interface GroupLayout {
  /** The listed offsets' topics and partitions (what the layout is valid for). */
  listedTopics: readonly string[];
  listedPartitions: readonly number[];
  /** Row i is listed offset order[i]; its dense partition index is dense[i]. */
  order: Int32Array;
  dense: Int32Array;
  topics: readonly string[];
  partitions: readonly number[];
  usedInCycle: number;
}

/** What the translation keeps of one flow between cycles (in SyncModelCache.lookupFlow). */
export class FlowRowsState {
  readonly placer: FlowPartitionPlacer;
  /** The flow's checkpoint index, for a caller that keeps none of its own (only new checkpoints are set a cycle). */
  readonly checkpointIndex = new CheckpointIndex();
  private cycle = 0;
  /** Per dense index: the cycle its history and its model were last looked up in, and what was found. */
  private historyCycles = new Int32Array(0);
  private modelCycles = new Int32Array(0);
  private readonly histories: (readonly SyncPoint[] | undefined)[] = [];
  private readonly numbers: (SyncNumbers | null)[] = [];
  /** The model each partition's key gave last (SyncModelCache.lookup's `known`). */
  private readonly models: (SyncModel | null)[] = [];
  private readonly layouts = new Map<string, GroupLayout>();
  /** The group ids as listed at the last sortGroups, and the positions in their sorted order. */
  private listedGroups: string[] = [];
  private groupOrder: number[] = [];

  constructor(private readonly flowId: string) {
    this.placer = new FlowPartitionPlacer(flowId);
  }

  /** Starts a translation of the flow: histories and models are looked up again, once per partition. */
  beginCycle(): void {
    this.cycle++;
  }

  /** The partition's sync history this cycle (the collector's array for its key; empty without one). */
  readHistory(index: number, syncHistory: ReadonlyMap<string, readonly SyncPoint[]>): readonly SyncPoint[] {
    this.reserve(index);
    if (this.historyCycles[index] !== this.cycle) {
      this.historyCycles[index] = this.cycle;
      this.histories[index] = syncHistory.get(this.placer.index.keyAt(index)) ?? [];
    }
    return this.histories[index]!;
  }

  /**
   * The numbers of the partition's replayed model this cycle (null without a sync), its model looked up in `cache`
   * once per cycle. Throws when a sync is beyond 2^53 (toSafeOffset).
   */
  readNumbers(index: number, fp: FlowPartition, cache: SyncModelCache, syncHistory: ReadonlyMap<string, readonly SyncPoint[]>): SyncNumbers | null {
    this.reserve(index);
    if (this.modelCycles[index] === this.cycle) return this.numbers[index] ?? null;
    const history = this.readHistory(index, syncHistory);
    this.modelCycles[index] = this.cycle;
    const known = this.models[index] ?? undefined;
    // The usual partition took no sync since last cycle: its model and numbers are as they were.
    const numbers = this.numbers[index] ?? null;
    if (known !== undefined && numbers !== null && numbers.version === known.version && cache.keep(known, history)) return numbers;
    const model = history.length === 0 ? null : cache.lookup(this.placer.index.keyAt(index), fp, history, known);
    this.models[index] = model;
    const made = model === null ? null : readSyncNumbers(model, fp, this.flowId);
    this.numbers[index] = made;
    return made;
  }

  /** The group's layout for `offsets` (its offsets at or above 0, as listed), made again when they moved. */
  readLayout(groupId: string, offsets: readonly GroupOffset[]): GroupLayout {
    const held = this.layouts.get(groupId);
    const layout = held !== undefined && isLaidOut(held, offsets) ? held : this.createLayout(offsets);
    if (layout !== held) this.layouts.set(groupId, layout);
    layout.usedInCycle = this.cycle;
    return layout;
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
    const size = Math.max(index + 1, this.historyCycles.length * 2, 1024);
    const historyCycles = new Int32Array(size);
    historyCycles.set(this.historyCycles);
    const modelCycles = new Int32Array(size);
    modelCycles.set(this.modelCycles);
    this.historyCycles = historyCycles;
    this.modelCycles = modelCycles;
    while (this.histories.length < size) this.histories.push(undefined);
    while (this.numbers.length < size) this.numbers.push(null);
    while (this.models.length < size) this.models.push(null);
  }

  private createLayout(offsets: readonly GroupOffset[]): GroupLayout {
    const positions = offsets.map((_, i) => i);
    // Array.prototype.sort is stable: a topic-partition listed twice keeps its listed order, as the rows' sort did.
    positions.sort((a, b) => compareTopicPartitions(offsets[a]!, offsets[b]!));
    const index = this.placer.index;
    return {
      listedTopics: offsets.map((o) => o.topic),
      listedPartitions: offsets.map((o) => o.partition),
      order: Int32Array.from(positions),
      dense: Int32Array.from(positions, (i) => index.ensure(offsets[i]!.topic, offsets[i]!.partition)),
      topics: positions.map((i) => offsets[i]!.topic),
      partitions: positions.map((i) => offsets[i]!.partition),
      usedInCycle: this.cycle,
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
 * translatePartition, translateFromSync (lib/mm2) and mapIdealOffset (sync-model.ts), on numbers. `logEnd`: the
 * partition's source log end from the flow's columns (NaN: unknown); `read`: the group's committed offset as read;
 * `groupReadAt`: when it was read (null: unknown).
 */
export function setNumericRow(
  rows: TranslationRows,
  r: number,
  numbers: SyncNumbers,
  fp: FlowPartition,
  logEnd: number,
  read: bigint,
  cp: CheckpointPoint | undefined,
  groupReadAt: number | null,
): boolean {
  const slotUpstream = numbers.slotUpstream;
  const last = slotUpstream.length - 1;
  if (!numbers.readToEnd || last < 0 || numbers.epochUpstream.length === 0) return false;
  const source = numbers.source;
  const committedRead = toSafeOffset(read, source, "committed offset");
  const checkpointUpstream = cp === undefined ? 0 : toSafeOffset(cp.upstream, source, "checkpoint upstream offset");
  const checkpointDownstream = cp === undefined ? 0 : toSafeOffset(cp.downstream, source, "checkpoint downstream offset");
  // A checkpoint written after the group was read may be for a later commit (translatePartition).
  const newer = cp !== undefined && checkpointUpstream > committedRead && groupReadAt !== null && cp.at > groupReadAt;
  const committed = newer ? checkpointUpstream : committedRead;
  // OffsetSyncStore.lookupLatestSync: the first slot at or before the offset, else the oldest (too old when above it).
  let k = 0;
  while (k < last && slotUpstream[k]! > committed) k++;
  if (slotUpstream[k]! > committed) return false;
  const translated = committed === slotUpstream[k]! ? numbers.slotDownstream[k]! : numbers.slotDownstream[k]! + 1;
  if (!locateIdeal(rows, r, numbers.epochUpstream, numbers.epochDownstream, committed, fp.targetDensityIssue === null)) return false;
  const within = isWithinLimit(committed) && isWithinLimit(translated) && isWithinLimit(checkpointUpstream) && isWithinLimit(checkpointDownstream);
  if (!within || !(Number.isNaN(logEnd) || isWithinLimit(logEnd))) return false;
  rows.committed[r] = committed;
  rows.translated[r] = translated;
  rows.syncs[r] = numbers.slots[k];
  rows.checkpoints[r] = cp;
  rows.checkpointUpstream[r] = checkpointUpstream;
  rows.checkpointDownstream[r] = checkpointDownstream;
  rows.logEnd[r] = logEnd;
  rows.partitions[r] = fp;
  return true;
}

/**
 * mapIdealOffset on numbers: sets row `r`'s ideal position of `upstream` from the latest epoch (strictly increasing
 * syncs); false (the row is not numeric) when a bound leaves ±2^52.
 */
function locateIdeal(rows: TranslationRows, r: number, up: readonly number[], down: readonly number[], upstream: number, dense: boolean): boolean {
  const i = findLastNumberAtOrBefore(up, upstream);
  if (i < 0) return setIdeal(rows, r, IdealCode.UNKNOWN_BEFORE_FIRST_SYNC, 0, 0);
  const syncDown = down[i]!;
  if (up[i] === upstream) return setIdeal(rows, r, IdealCode.EXACT_SYNC, syncDown, syncDown);
  if (i === up.length - 1) {
    // Beyond the newest sync: bounded by one target record per source offset.
    const low = syncDown + 1;
    const high = syncDown + (upstream - up[i]!);
    return setIdeal(rows, r, low === high ? IdealCode.EXACT_PINNED : IdealCode.BRACKET_BEYOND_NEWEST, low, high);
  }
  const nextUp = up[i + 1]!;
  const nextDown = down[i + 1]!;
  const upstreamAdvance = nextUp - up[i]!;
  const downstreamAdvance = nextDown - syncDown;
  if (!dense || downstreamAdvance > upstreamAdvance) {
    const low = syncDown + 1;
    return setIdeal(rows, r, low === nextDown ? IdealCode.EXACT_PINNED : IdealCode.BRACKET_DOWNSTREAM_GAP, low, nextDown);
  }
  const low = syncDown + 1 + Math.max(0, downstreamAdvance - 1 - (nextUp - upstream));
  const high = Math.min(nextDown, syncDown + (upstream - up[i]!));
  if (low !== high) return setIdeal(rows, r, IdealCode.BRACKET_UPSTREAM_GAP, low, high);
  return setIdeal(rows, r, upstreamAdvance === downstreamAdvance ? IdealCode.EXACT_ONE_TO_ONE : IdealCode.EXACT_PINNED, low, high);
}

function setIdeal(rows: TranslationRows, r: number, code: number, low: number, high: number): boolean {
  if (!isWithinLimit(low) || !isWithinLimit(high)) return false;
  rows.ideal[r] = code;
  rows.low[r] = low;
  rows.high[r] = high;
  return true;
}
