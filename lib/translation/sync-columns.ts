/**
 * A partition's replayed offset-sync model as float64 numbers, for the translation's row arithmetic (190,000 rows a
 * cycle at 100,000 partitions: numbers cost no allocation, where every bigint result is one). A float64 holds every
 * integer below 2^53 exactly, so an offset is checked once where it comes in (toSafeOffset) and the arithmetic on
 * checked values is exact; a result that could leave that range is computed with bigints instead (translate-flow.ts).
 */
import type { SyncPoint, TopicPartition } from "@/lib/mm2";
import type { SyncModel } from "./sync-model";

/** The numbers of one SyncModel version: the store's distinct slots and the latest epoch. */
export interface SyncNumbers {
  /** SyncModel.version they were made from. */
  version: number;
  /** The partition, for an error naming it. */
  source: OffsetSource;
  readToEnd: boolean;
  /** The store's distinct slots, newest first (as its 64 slots read in order), and their offsets. */
  slots: SyncPoint[];
  slotUpstream: number[];
  slotDownstream: number[];
  /** The latest epoch these numbers copy (its array grows in place while the history only grows). */
  epoch: readonly SyncPoint[];
  epochUpstream: number[];
  epochDownstream: number[];
}

/** Where an offset came from, for the error naming it. */
export interface OffsetSource {
  flow: string;
  topic: string;
  partition: number;
}

/**
 * `value` as a number, exact: offsets stay below 2^53 (9 × 10^15 records) in any real log, and a value beyond it is
 * an error naming where it came from rather than a silently rounded count.
 */
export function toSafeOffset(value: bigint, source: OffsetSource, what: string): number {
  // One conversion, then number comparisons: a value at or beyond 2^53 converts to at least 2^53 (representable).
  const number = Number(value);
  if (number > Number.MAX_SAFE_INTEGER || number < -Number.MAX_SAFE_INTEGER) throwBeyondSafe(value, source, what);
  return number;
}

/** The error of toSafeOffset, apart so the check itself stays small enough to inline (it runs for every row). */
function throwBeyondSafe(value: bigint, source: OffsetSource, what: string): never {
  throw new RangeError(
    `${what} ${value} of ${source.topic}/${source.partition} (flow ${source.flow}) is beyond 2^53 − 1, the largest offset ` +
      "Gapwatch's offset translation computes exactly; the flow's translation is not computed while it is",
  );
}

/** The model's numbers, made again only for a model that took syncs since they were made. */
export function readSyncNumbers(model: SyncModel, tp: TopicPartition, flow: string): SyncNumbers {
  const held = model.numbers;
  const readToEnd = model.store.isReadToEnd();
  if (held !== null && held.version === model.version && held.readToEnd === readToEnd) return held;
  const source: OffsetSource = { flow, topic: tp.topic, partition: tp.partition };
  const numbers: SyncNumbers = {
    version: model.version,
    source,
    readToEnd,
    slots: [],
    slotUpstream: [],
    slotDownstream: [],
    epoch: model.epoch,
    epochUpstream: [],
    epochDownstream: [],
  };
  addDistinctSlots(numbers, model.store.getSlots(tp) ?? []);
  // An epoch that only grew at its end since (the same array) keeps its numbers: only the new syncs are converted.
  const from = held !== null && held.epoch === model.epoch && held.epochUpstream.length <= model.epoch.length ? held : null;
  if (from !== null) {
    numbers.epochUpstream = from.epochUpstream;
    numbers.epochDownstream = from.epochDownstream;
  }
  for (let i = numbers.epochUpstream.length; i < model.epoch.length; i++) {
    const sync = model.epoch[i]!;
    numbers.epochUpstream.push(toSafeOffset(sync.upstream, source, "offset sync upstream"));
    numbers.epochDownstream.push(toSafeOffset(sync.downstream, source, "offset sync downstream"));
  }
  model.numbers = numbers;
  return numbers;
}

/**
 * The slots without their repeats, and their offsets, without an array per step (30,000 partitions take a sync a
 * cycle at 300,000): the first slot at or before an offset is the same in both lists.
 */
function addDistinctSlots(numbers: SyncNumbers, slots: readonly SyncPoint[]): void {
  const { source } = numbers;
  let previous: SyncPoint | undefined;
  // Index loops: an iterator's result objects were 20 MiB a cycle at 100,000 partitions while this ran unoptimized.
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    if (slot === previous) continue;
    previous = slot;
    numbers.slots.push(slot);
    numbers.slotUpstream.push(toSafeOffset(slot.upstream, source, "offset sync upstream"));
  }
  // Upstream offsets first, as before: the error a store with several offsets beyond 2^53 names stays the same.
  const distinct = numbers.slots;
  for (let i = 0; i < distinct.length; i++) numbers.slotDownstream.push(toSafeOffset(distinct[i]!.downstream, source, "offset sync downstream"));
}

/** Index of the last epoch sync with upstream ≤ `offset`, or −1 (most offsets are at or past the newest sync). */
export function findLastNumberAtOrBefore(upstream: readonly number[], offset: number): number {
  const last = upstream.length - 1;
  if (last >= 0 && upstream[last]! <= offset) return last;
  let lo = 0;
  let hi = last;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (upstream[mid]! <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
