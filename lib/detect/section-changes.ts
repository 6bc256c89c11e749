/**
 * What a detector changed in one per-partition section of the memory (TASK_STALLED's marks,
 * MM2_POSITION_MOVED's marks, the sync markers), so the persister lists a cycle's changes from
 * the keys the detector touched instead of walking 100,000 keys (memory-persistence.ts). Kept beside
 * the section, keyed by the new section object, not in it: the memory stays plain JSON and the previous
 * one unchanged, and a section made any other way (read from the store, merged across shards) has no
 * record: it is walked whole.
 */

/** How a section was made from the previous cycle's. */
export interface SectionChanges<T = unknown> {
  /** Names this section (not the object itself: a chain of sections, each keeping the one before alive, would leak). */
  id: number;
  /** The section it was made from (`id` of its record; 0: none, e.g. read from the store), and that one's `now`. */
  baseId: number;
  baseNow: number;
  /** The cycle's `now`. */
  now: number;
  /** Keys whose entry may be stored differently than its entry in the base (every other key stores the same). */
  touched: readonly string[];
  /**
   * The entry of the `i`th touched key in the base, and in the section (valid unless `repeated`). Made when asked for:
   * at 100,000 partitions most touched entries are routine advances the persister skips without them.
   */
  readBefore(i: number): T | undefined;
  readAfter(i: number): T;
  /**
   * Whether the `i`th touched key's entry only advanced (what the persister's `routine` test says of the two entries,
   * answered from their numbers without making them); absent when the section cannot tell.
   */
  isRoutine?(i: number): boolean;
  /** Whether a key was put more than once (readBefore and readAfter may then give outdated entries: read by key). */
  repeated: boolean;
  /** Keys in the section. */
  size: number;
  /** Whether a key of the base is not in the section. */
  dropped: boolean;
}

let lastId = 0;
const recorded = new WeakMap<object, SectionChanges>();

/** Records how a section (a columnar one, mark-columns.ts) was made from the previous cycle's; returns the id it gets. */
export function recordSectionChanges<T>(section: object, changes: Omit<SectionChanges<T>, "id">): number {
  const id = ++lastId;
  recorded.set(section, { ...changes, id } as SectionChanges);
  return id;
}

/** The record of how `section` was made, when a builder made it (mark-columns.ts). */
export function readSectionChanges<T>(section: Readonly<Record<string, T>>): SectionChanges<T> | undefined {
  return recorded.get(section) as SectionChanges<T> | undefined;
}
