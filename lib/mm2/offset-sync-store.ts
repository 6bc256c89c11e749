/**
 * A faithful model of MirrorCheckpointTask's in-memory OffsetSyncStore, so Gapwatch can predict the
 * checkpoints MM2 will emit from the offset syncs it reads. Mirrors apache/kafka
 * connect/mirror/src/main/java/org/apache/kafka/connect/mirror/OffsetSyncStore.java — the
 * invariant-based store of KAFKA-15202 (3.5.2 / 3.6.0+) plus the start-up flag of KAFKA-15905
 * (PR #15910, 3.7.1 / 3.8.0+). Kafka ≤3.4.0 (one sync per partition) and 3.4.1–3.5.1 (power-of-two
 * buckets) behave differently and are not modelled.
 *
 * Public API
 *   const store = createOffsetSyncStore({ initializationMustReadToEnd });   // default true
 *   store.addSync(sync) / store.handleRecord(key, value)  // feed syncs in topic order
 *   store.markReadToEnd()                                // Java start() returning: initial read done
 *   store.translateDownstream(group, tp, upstream)       // Translation (empty | too-old | translated)
 *   store.listRetainedSyncs(tp)                          // distinct slots, newest first
 *   store.getSlots(tp)                                   // the 64 raw slots (identity kept), for tests
 *   toOptionalLong(translation)                          // Java's OptionalLong: null | -1n | offset
 *   resolveInitializationMustReadToEnd(kafkaVersion, checkpointsReadOk)
 *
 * Invariants per partition (Java class comment), 64 slots `syncs[0..63]`:
 *   A: syncs[0] is the latest sync.
 *   B: for i < j, syncs[i] != syncs[j]: syncs[i].upstream <= syncs[j].upstream + 2^j - 2^i
 *   C: for i < j, syncs[i] != syncs[j]: syncs[i].upstream >= syncs[j].upstream + 2^(i-2)
 *   D: syncs[63] is the earliest sync usable for translation (kept until an upstream rewind).
 * "!=" is Java reference inequality: each record read is a distinct object even when its offsets
 * repeat, so slots here are distinct frozen objects compared with ===.
 *
 * Start-up (the exact condition implemented, from updateSyncArray after PR #15910):
 *   clear all 64 slots to the new sync  iff  (!readToEnd && initializationMustReadToEnd)
 *                                            || newSync.upstream < syncs[0].upstream
 * MirrorCheckpointTask (trunk @a55a4299) calls `offsetSyncStore.start(!checkpointsReadOk)`, i.e. the
 * flag is false only when the task read its previous checkpoints. Before 3.7.1 the condition was
 * `!readToEnd || syncs[0].upstream > upstream`, which equals the above with the flag always true.
 * The first sync of a partition always fills all slots (Java createInitialSyncs).
 *
 * Sources read: the KAFKA-15202 OffsetSyncStore.java in full (updateSyncArray(syncs, original, sync),
 * invariantB/C, lookupLatestSync) and its OffsetSyncStoreTest; for the 3.8 flag, PR #15910's review
 * (`pessimisticLoading` renamed `initializationMustReadToEnd`, set by `start(boolean)`) and
 * MirrorCheckpointTask @a55a4299. The 3.8 test's quoted vectors (3840←0, 7680←3840, 8640←7680,
 * 9120←8640) are reproduced exactly by this model.
 */
import { decodeOffsetSync } from "./record-decoders";
import { isInt64 } from "./protocol-types";
import type { OffsetSync, SyncPoint, TopicPartition } from "./types";

/** Slots per partition: one per bit of a long (Java SYNCS_PER_PARTITION = Long.SIZE). */
export const SYNCS_PER_PARTITION = 64;

/** Options of the modelled store. */
export interface OffsetSyncStoreOptions {
  /**
   * Java `initializationMustReadToEnd`: true (default) = syncs read before markReadToEnd wipe the
   * partition's slots so only the last survives; false = they go through the normal update.
   */
  initializationMustReadToEnd?: boolean;
}

/** Result of translateDownstream; `toOptionalLong` maps it back to Java's OptionalLong. */
export type Translation =
  | { kind: "empty"; reason: "not-read-to-end" | "no-sync" }
  | { kind: "too-old"; oldest: SyncPoint }
  | { kind: "translated"; downstream: bigint; sync: SyncPoint };

/** Creates an empty store, not yet read to end. */
export function createOffsetSyncStore(options: OffsetSyncStoreOptions = {}): OffsetSyncStore {
  return new OffsetSyncStore(options.initializationMustReadToEnd ?? true);
}

/** Java's view of a translation: null = OptionalLong.empty(), -1n = too old, else the offset. */
export function toOptionalLong(translation: Translation): bigint | null {
  if (translation.kind === "empty") return null;
  return translation.kind === "too-old" ? -1n : translation.downstream;
}

/**
 * The flag MirrorCheckpointTask passes for a Kafka version: before 3.7.1 start-up always wipes
 * (the flag did not exist, behaviour = true); from 3.7.1/3.8.0 it is `!checkpointsReadOk`.
 */
export function resolveInitializationMustReadToEnd(kafkaVersion: string, checkpointsReadOk: boolean): boolean {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(kafkaVersion);
  if (!match) throw new RangeError(`Unrecognised Kafka version "${kafkaVersion}"`);
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  const hasFlag = major > 3 || (major === 3 && (minor > 7 || (minor === 7 && patch >= 1)));
  return hasFlag ? !checkpointsReadOk : true;
}

/**
 * The downstream offset MM2 translates `upstream` to from `sync` (at or below it). The "+1 rule": never
 * more than one past a known sync (records in between may be dropped); at the sync itself the sync's
 * own downstream offset, an int64 already (no arithmetic).
 */
export function translateFromSync(sync: SyncPoint, upstream: bigint): bigint {
  return upstream === sync.upstream ? sync.downstream : wrapLong(sync.downstream + 1n);
}

/** Java long arithmetic: results wrap modulo 2^64 like `jUpstream + (1L << j) - (1L << i)`. */
function wrapLong(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}

/** Java `1L << k` for 0 <= k < 64 (1L << 63 is Long.MIN_VALUE), computed once: every added sync asks for dozens. */
const powersOfTwo: readonly bigint[] = Array.from({ length: SYNCS_PER_PARTITION }, (_, k) => wrapLong(1n << BigInt(k)));

function shiftLeftLong(k: number): bigint {
  return powersOfTwo[k]!;
}

/** Java invariantB(iSync, jSync, i, j): is iSync recent enough to sit before jSync? */
function holdsInvariantB(iSync: SyncPoint, jSync: SyncPoint, i: number, j: number): boolean {
  const bound = wrapLong(jSync.upstream + shiftLeftLong(j) - shiftLeftLong(i));
  return iSync === jSync || bound < 0n || iSync.upstream <= bound;
}

/** Java invariantC(iSync, jSync, i): is iSync far enough ahead of jSync? */
function holdsInvariantC(iSync: SyncPoint, jSync: SyncPoint, i: number): boolean {
  const bound = wrapLong(jSync.upstream + shiftLeftLong(Math.max(i - 2, 0)));
  return iSync === jSync || (bound >= 0n && iSync.upstream >= bound);
}

function getSlot(slots: readonly SyncPoint[], index: number): SyncPoint {
  const slot = slots[index];
  if (slot === undefined) throw new Error(`Slot ${index} missing: store arrays always hold ${SYNCS_PER_PARTITION}`);
  return slot;
}

/**
 * Java updateSyncArray after its clear check: repair invariant A at slot 0, then walk the slots,
 * promoting older values from `original` where they still satisfy B and C, until B holds again.
 */
function repairSlots(slots: SyncPoint[], original: readonly SyncPoint[], sync: SyncPoint): void {
  let replacement = sync;
  let replacementIndex = 0;
  slots[0] = replacement;
  for (let current = 1; current < SYNCS_PER_PARTITION; current++) {
    const previous = current - 1;
    let skipOldValue: boolean;
    do {
      const oldValue = getSlot(original, replacementIndex);
      const isRecent = holdsInvariantB(getSlot(slots, previous), oldValue, previous, current);
      const separatedFromPrevious = holdsInvariantC(getSlot(slots, previous), oldValue, previous);
      const next = current + 1;
      const separatedFromNext = next >= SYNCS_PER_PARTITION || holdsInvariantC(oldValue, getSlot(slots, next), current);
      const nextReplacement = replacementIndex + 1;
      const duplicate = nextReplacement < SYNCS_PER_PARTITION && oldValue === original[nextReplacement];
      const promote = isRecent && separatedFromPrevious && separatedFromNext;
      if (promote) replacement = oldValue;
      skipOldValue = duplicate || !separatedFromPrevious;
      if (promote || skipOldValue) replacementIndex++;
    } while (replacementIndex < current && skipOldValue);
    if (holdsInvariantB(getSlot(slots, previous), getSlot(slots, current), previous, current)) break;
    slots[current] = replacement;
  }
}

interface PartitionSlots {
  tp: TopicPartition;
  slots: readonly SyncPoint[];
}

/** Partitions by topic, then partition number, and in the order they got their first sync. */
interface PartitionIndex {
  byTopic: Map<string, Map<number, PartitionSlots>>;
  inOrder: TopicPartition[];
}

/** The first slot whose upstream is at or before `upstream` (a loop: this runs per translated row). */
function findFirstAtOrBefore(slots: readonly SyncPoint[], upstream: bigint): SyncPoint | undefined {
  for (let i = 0; i < slots.length; i++) if (slots[i]!.upstream <= upstream) return slots[i];
  return undefined;
}

/** The modelled store; create it with createOffsetSyncStore. */
export class OffsetSyncStore {
  /**
   * The first partition to get a sync, kept apart: a store replayed for one partition (replaySyncHistory) needs no
   * maps. (The translation's per-cycle models are lib/translation/sync-slots.ts, numbers checked against this one.)
   */
  private first: PartitionSlots | undefined = undefined;
  /**
   * The other partitions, made with the second one: by topic, then partition number (found without building a key
   * string per lookup), and in the order they got their first sync (listPartitions).
   */
  private others: PartitionIndex | null = null;
  private readToEnd = false;
  /** The partition found last: a one-partition store's lookups all ask for it, found without the two map lookups. */
  private lastFound: PartitionSlots | undefined = undefined;

  constructor(private readonly initializationMustReadToEnd: boolean) {}

  /** Decodes an offset-syncs record and adds it; throws MalformedRecordError like decodeOffsetSync. */
  handleRecord(key: Buffer | null, value: Buffer | null): OffsetSync {
    const sync = decodeOffsetSync(key, value);
    this.addSync(sync);
    return sync;
  }

  /** Adds the next sync read from the offset-syncs topic (Java handleRecord after deserializing). */
  addSync(sync: OffsetSync): void {
    if (!isInt64(sync.upstream) || !isInt64(sync.downstream)) {
      throw new RangeError(`Offset sync ${sync.upstream}:${sync.downstream} is outside the int64 range`);
    }
    const point: SyncPoint = Object.freeze({ upstream: sync.upstream, downstream: sync.downstream });
    const existing = this.findPartition(sync);
    if (existing === undefined) {
      const tp = { topic: sync.topic, partition: sync.partition };
      const added: PartitionSlots = { tp, slots: this.fillSlots(point) };
      if (this.first === undefined) {
        this.first = added;
        return;
      }
      const others: PartitionIndex = (this.others ??= { byTopic: new Map(), inOrder: [] });
      let byNumber = others.byTopic.get(tp.topic);
      if (byNumber === undefined) others.byTopic.set(tp.topic, (byNumber = new Map()));
      byNumber.set(tp.partition, added);
      others.inOrder.push(tp);
      return;
    }
    const clearAll =
      (!this.readToEnd && this.initializationMustReadToEnd) || point.upstream < getSlot(existing.slots, 0).upstream;
    if (clearAll) {
      existing.slots = this.fillSlots(point);
      return;
    }
    // Copy before mutating, as Java does, so earlier getSlots() results stay unchanged.
    const slots = [...existing.slots];
    repairSlots(slots, existing.slots, point);
    existing.slots = Object.freeze(slots);
  }

  /** Marks the initial read-to-end as done (Java: `readToEnd = true` at the end of start()). */
  markReadToEnd(): void {
    this.readToEnd = true;
  }

  /** Whether markReadToEnd was called. */
  isReadToEnd(): boolean {
    return this.readToEnd;
  }

  /** Java translateDownstream; `group` is only logged by Kafka and unused here. */
  translateDownstream(_group: string | null, tp: TopicPartition, upstream: bigint): Translation {
    if (!this.readToEnd) return { kind: "empty", reason: "not-read-to-end" };
    const sync = this.lookupLatestSync(tp, upstream);
    if (sync === null) return { kind: "empty", reason: "no-sync" };
    if (sync.upstream > upstream) return { kind: "too-old", oldest: sync };
    return { kind: "translated", downstream: translateFromSync(sync, upstream), sync };
  }

  /**
   * Java lookupLatestSync: the first slot at or before `upstream`, else the oldest slot (too old when
   * above it); null without a sync for the partition. Ignores readToEnd: for callers that checked it
   * and translate a row without a Translation object each (190,000 rows a cycle at 100,000 partitions).
   */
  lookupLatestSync(tp: TopicPartition, upstream: bigint): SyncPoint | null {
    const slots = this.findPartition(tp)?.slots;
    if (slots === undefined) return null;
    return findFirstAtOrBefore(slots, upstream) ?? getSlot(slots, SYNCS_PER_PARTITION - 1);
  }

  /** The distinct retained syncs of a partition, newest first (Java's offsetArrayToString view). */
  listRetainedSyncs(tp: TopicPartition): SyncPoint[] {
    const slots = this.findPartition(tp)?.slots ?? [];
    return slots.filter((slot, i) => i === 0 || slot !== slots[i - 1]);
  }

  /** The 64 raw slots of a partition (Java syncFor for every index), or null when it has no sync. */
  getSlots(tp: TopicPartition): readonly SyncPoint[] | null {
    return this.findPartition(tp)?.slots ?? null;
  }

  /** Topic-partitions that have at least one sync. */
  listPartitions(): TopicPartition[] {
    return this.first === undefined ? [] : [this.first.tp, ...(this.others?.inOrder ?? [])];
  }

  private findPartition(tp: TopicPartition): PartitionSlots | undefined {
    const last = this.lastFound;
    if (last !== undefined && last.tp.partition === tp.partition && last.tp.topic === tp.topic) return last;
    const first = this.first;
    const isFirst = first !== undefined && first.tp.partition === tp.partition && first.tp.topic === tp.topic;
    const found = isFirst ? first : this.others?.byTopic.get(tp.topic)?.get(tp.partition);
    if (found !== undefined) this.lastFound = found;
    return found;
  }

  private fillSlots(point: SyncPoint): readonly SyncPoint[] {
    // Every slot equal satisfies invariants B and C trivially (Java clearSyncArray).
    return Object.freeze(new Array<SyncPoint>(SYNCS_PER_PARTITION).fill(point));
  }
}
