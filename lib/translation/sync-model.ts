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
import {
  createOffsetSyncStore,
  type DownstreamMapping,
  findLastAtOrBefore,
  mapBetweenSyncs,
  OffsetSyncStore,
  selectLatestEpoch,
  type SyncPoint,
  type TopicPartition,
} from "@/lib/mm2";
import type { SyncNumbers } from "./sync-columns";
import type { IdealOffset, ModelTranslation } from "./types";

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

/**
 * MM2's translations from one sync of a partition's model: the sync's downstream (`at`) and one past it
 * (`past`), shared by every row that gets them, from cycle to cycle, until a row translates with another sync.
 */
export interface SyncTranslations {
  sync: SyncPoint | null;
  at: ModelTranslation | null;
  past: ModelTranslation | null;
}

/** A partition's replayed model, its latest epoch, and the translations its rows share. */
export interface SyncModel {
  store: OffsetSyncStore;
  epoch: readonly SyncPoint[];
  translations: SyncTranslations;
  /** Changes whenever the model takes syncs (unique over every model): what its numeric copy was made from. */
  version: number;
  /** The model's numbers for the row arithmetic (sync-columns.ts), made again only when `version` changed. */
  numbers: SyncNumbers | null;
}

interface CacheEntry extends SyncModel {
  consumed: number;
  last: SyncPoint | null;
  /** The history array of the entry's last lookup (keep: the same array, neither grown nor trimmed, needs none). */
  history: readonly SyncPoint[];
  epoch: SyncPoint[];
  /** The cycle (SyncModelCache.endCycle count) of the entry's last lookup. */
  usedInCycle: number;
  /** Set when endCycle drops the entry: a caller holding it looks it up by key again. */
  dropped?: true;
}

/** Cycles an entry survives without a lookup (a group that briefly disappears keeps its model). */
const unusedCyclesKept = 60;

/** The last SyncModel version given out (module-wide, so no two models ever share one). */
let lastVersion = 0;

/**
 * Keeps one replayed model per flow partition between cycles and feeds it only the syncs appended
 * since (the collector's history arrays only grow, and are trimmed at the front past 20,000 syncs;
 * the entry finds its place again by the identity of the last sync it consumed). Without it every
 * cycle would replay up to 20,000 syncs per partition.
 */
export class SyncModelCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly flows = new Map<string, { state: unknown; usedInCycle: number }>();
  private cycle = 0;

  constructor(private readonly options: ReplayOptions = {}) {}

  /**
   * What the translation keeps of one flow between cycles (translate-flow.ts: its dense partition index and group
   * layouts), made by `create` on the flow's first lookup and dropped like a model after 60 cycles without one.
   */
  lookupFlow<T>(flowId: string, create: () => T): T {
    let held = this.flows.get(flowId);
    if (held === undefined) this.flows.set(flowId, (held = { state: create(), usedInCycle: this.cycle }));
    held.usedInCycle = this.cycle;
    return held.state as T;
  }

  /** The model and the latest epoch (for exact mapping) of one partition's history, valid until the key's next lookup. */
  lookup(key: string, tp: TopicPartition, history: readonly SyncPoint[], known?: SyncModel): SyncModel {
    // `known`: the model this key gave before, when the caller kept it (translate-flow.ts, by dense index): no map
    // lookup in a table of every partition, unless endCycle dropped it.
    const held = known as CacheEntry | undefined;
    const entry = held !== undefined && held.dropped !== true ? held : this.entries.get(key);
    const resumeAt = entry ? findResumeIndex(entry, history) : -1;
    if (!entry || resumeAt < 0) {
      if (entry) entry.dropped = true;
      const fresh: CacheEntry = {
        store: replaySyncHistory(tp, history, this.options),
        consumed: history.length,
        last: history.at(-1) ?? null,
        history,
        epoch: selectLatestEpoch(history),
        translations: { sync: null, at: null, past: null },
        usedInCycle: this.cycle,
        version: ++lastVersion,
        numbers: null,
      };
      this.entries.set(key, fresh);
      return fresh;
    }
    if (resumeAt < history.length) {
      for (let i = resumeAt; i < history.length; i++) {
        const sync = history[i]!;
        entry.store.addSync({ topic: tp.topic, partition: tp.partition, upstream: sync.upstream, downstream: sync.downstream });
      }
      // The history only grew at its end (same object at the same place): the latest epoch continues
      // from the one already selected. After a trim at the front it is selected again from the history.
      entry.epoch = resumeAt === entry.consumed ? extendLatestEpoch(entry.epoch, history, resumeAt) : selectLatestEpoch(history);
      entry.version = ++lastVersion;
    }
    entry.consumed = history.length;
    entry.last = history.at(-1) ?? null;
    entry.history = history;
    entry.usedInCycle = this.cycle;
    return entry;
  }

  /**
   * Whether `model` (from this cache's lookup of a key) still stands for that key's `history`: the same array as at
   * its last lookup, ending with the same sync at the same length (nothing appended, nothing trimmed). Marks it used
   * this cycle, as a lookup would; false when it must be looked up (it took syncs since, or endCycle dropped it).
   * Most partitions take no sync in a cycle: this skips the store and the numbers for them (100,000 a cycle).
   */
  keep(model: SyncModel, history: readonly SyncPoint[]): boolean {
    const entry = model as CacheEntry;
    const length = history.length;
    if (entry.dropped === true || entry.history !== history || entry.consumed !== length || (length > 0 && history[length - 1] !== entry.last)) return false;
    entry.usedInCycle = this.cycle;
    return true;
  }

  /**
   * Ends a cycle's lookups: drops the entries not looked up for 60 cycles (partitions or groups that
   * disappeared). Marking on lookup costs nothing per partition, where a set of every partition's key did.
   */
  endCycle(): void {
    // forEach: an iterator makes a [key, entry] array per entry (100,000 a cycle at 100,000 partitions).
    this.entries.forEach((entry, key) => {
      if (this.cycle - entry.usedInCycle < unusedCyclesKept) return;
      entry.dropped = true;
      this.entries.delete(key);
    });
    for (const [id, held] of this.flows) if (this.cycle - held.usedInCycle >= unusedCyclesKept) this.flows.delete(id);
    this.cycle++;
  }
}

/**
 * selectLatestEpoch(history) given `epoch` = selectLatestEpoch(history[0, from)): the same left fold
 * over the syncs from `from` on (O(new syncs) instead of O(history), up to 20,000 per partition).
 * Extends `epoch` in place: the cache owns it, and lookup's callers use it before the next lookup.
 */
function extendLatestEpoch(epoch: SyncPoint[], history: readonly SyncPoint[], from: number): SyncPoint[] {
  let next = epoch;
  for (let i = from; i < history.length; i++) {
    const sync = history[i]!;
    const last = next[next.length - 1];
    if (last === undefined) {
      next.push(sync);
      continue;
    }
    if (sync.upstream === last.upstream && sync.downstream === last.downstream) continue;
    if (sync.upstream > last.upstream && sync.downstream > last.downstream) next.push(sync);
    else next = [sync];
  }
  return next;
}

/** Index of the first sync not yet consumed, or −1 when the history no longer continues the entry's. */
function findResumeIndex(entry: CacheEntry, history: readonly SyncPoint[]): number {
  if (entry.last === null) return history.length === 0 ? 0 : -1;
  if (history[entry.consumed - 1] === entry.last) return entry.consumed;
  const index = history.lastIndexOf(entry.last);
  return index < 0 ? -1 : index + 1;
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
  if (epoch.length === 0) return { kind: "unknown", reason: "no-sync" };
  const index = findLastAtOrBefore(epoch, upstream);
  if (index < 0) return { kind: "unknown", reason: "before-first-sync" };
  const sync = epoch[index]!;
  const next = epoch[index + 1];
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
