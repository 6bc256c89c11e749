/**
 * What a detector changed in one per-partition section of the memory (TASK_STALLED's marks,
 * MM2_POSITION_MOVED's marks, the sync markers), so the persister lists a cycle's changes from
 * the keys the detector touched instead of walking 100,000 keys (memory-persistence.ts). Kept
 * beside the section, keyed by the new section object, not in it: the memory stays plain JSON and
 * the previous one unchanged, and a section made any other way (read from the store, merged
 * across shards) has no record and is walked whole.
 */

/** How a section was made from the previous cycle's. */
export interface SectionChanges {
  /** Names this section (not the object itself: a chain of sections, each keeping the one before alive, would leak). */
  id: number;
  /** The section it was made from (`id` of its record; 0: none, e.g. read from the store), and that one's `now`. */
  baseId: number;
  baseNow: number;
  /** The cycle's `now`. */
  now: number;
  /** Keys whose entry may be stored differently than its entry in the base (every other key stores the same). */
  touched: readonly string[];
  /** Keys in the section. */
  size: number;
  /** Whether a key of the base is not in the section. */
  dropped: boolean;
}

let lastId = 0;
const recorded = new WeakMap<object, SectionChanges>();

/** The record of how `section` was made, when a SectionBuilder made it. */
export function readSectionChanges(section: object): SectionChanges | undefined {
  return recorded.get(section);
}

/** Builds a section from the previous cycle's, recording the keys it touches. */
export interface SectionBuilder<T> {
  /**
   * Sets `key` to `entry` (`old`: its entry in the base). `stored` says whether the entry may be
   * stored differently than `old`; by default, whether it is another object.
   */
  put(key: string, old: T | undefined, entry: T, stored?: boolean): void;
  /** The section, recorded. */
  finish(): Record<string, T>;
}

export function createSectionBuilder<T>(base: Readonly<Record<string, T>>, now: number): SectionBuilder<T> {
  const entries: Record<string, T> = {};
  const touched: string[] = [];
  let size = 0;
  let kept = 0;
  return {
    put(key, old, entry, stored = entry !== old) {
      // A key put twice (a partition listed twice) counts once.
      if (entries[key] === undefined) {
        size++;
        if (old !== undefined) kept++;
      }
      entries[key] = entry;
      if (stored) touched.push(key);
    },
    finish() {
      // The base's size from its own record; a base read from the store is counted once.
      const made = recorded.get(base);
      const baseSize = made?.size ?? Object.keys(base).length;
      recorded.set(entries, { id: ++lastId, baseId: made?.id ?? 0, baseNow: made?.now ?? Number.NaN, now, touched, size, dropped: kept !== baseSize });
      return entries;
    },
  };
}
