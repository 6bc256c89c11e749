/**
 * What a detector changed in one per-partition section of the memory (TASK_STALLED's marks,
 * MM2_POSITION_MOVED's marks, the sync markers), so the persister lists a cycle's changes from
 * the keys the detector touched instead of walking 100,000 keys (memory-persistence.ts), and the
 * next cycle's detector reads it in the order it was written instead of looking up every key
 * (createSectionReader). Kept beside the section, keyed by the new section object, not in it: the
 * memory stays plain JSON and the previous one unchanged, and a section made any other way (read
 * from the store, merged across shards) has no record: it is read key by key and walked whole.
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
  /** Per touched key, its entry in the base and in the section (valid unless `repeated`). */
  touchedBefore: readonly (T | undefined)[];
  touchedAfter: readonly T[];
  /** Every key and its entry in the order they were put (valid unless `repeated`): the next cycle reads them in order. */
  keys: readonly string[];
  entries: readonly T[];
  /** Whether a key was put more than once (the lists above then hold outdated entries: read by key). */
  repeated: boolean;
  /** Keys in the section. */
  size: number;
  /** Whether a key of the base is not in the section. */
  dropped: boolean;
}

let lastId = 0;
const recorded = new WeakMap<object, SectionChanges>();

/**
 * Records how a section made some other way than by a SectionBuilder (a columnar one, stall-marks.ts) was made
 * from the previous cycle's; returns the id it gets.
 */
export function recordSectionChanges<T>(section: object, changes: Omit<SectionChanges<T>, "id">): number {
  const id = ++lastId;
  recorded.set(section, { ...changes, id } as SectionChanges);
  return id;
}

/** The record of how `section` was made, when a SectionBuilder made it. */
export function readSectionChanges<T>(section: Readonly<Record<string, T>>): SectionChanges<T> | undefined {
  return recorded.get(section) as SectionChanges<T> | undefined;
}

/**
 * Reads a section key by key in the order its builder put them: a detector walks the partitions in the same
 * order every cycle, so the entry is found by position (a hash lookup in a 100,000-key record costs more than
 * the rest of a partition's work). A key out of that order, or a section not made by a builder, is looked up.
 * Sections are never changed once made, so the entry at a position is the section's entry for its key.
 */
export function createSectionReader<T>(section: Readonly<Record<string, T>>): (key: string) => T | undefined {
  const made = readSectionChanges(section);
  if (made === undefined || made.repeated) return (key) => section[key];
  const { keys, entries } = made;
  let next = 0;
  return (key) => {
    if (keys[next] === key) return entries[next++];
    // One partition gone since: step over it.
    if (keys[next + 1] === key) {
      next += 2;
      return entries[next - 1];
    }
    return section[key];
  };
}

/** Builds a section from the previous cycle's, recording the keys it touches. */
export interface SectionBuilder<T> {
  /**
   * Sets `key` to `entry` (`old`: its entry in the base). `stored` says whether the entry may be
   * stored differently than `old`; by default, whether it is another object.
   */
  put(key: string, old: T | undefined, entry: T, stored?: boolean): void;
  /** Whether `key` was put. */
  has(key: string): boolean;
  /** The section, recorded. */
  finish(): Record<string, T>;
}

export function createSectionBuilder<T>(base: Readonly<Record<string, T>>, now: number): SectionBuilder<T> {
  const entries: Record<string, T> = {};
  const keys: string[] = [];
  const values: T[] = [];
  const touched: string[] = [];
  const touchedBefore: (T | undefined)[] = [];
  const touchedAfter: T[] = [];
  let repeated = false;
  let size = 0;
  let kept = 0;
  const made = recorded.get(base);
  const baseKeys = made === undefined || made.repeated ? undefined : made.keys;
  // Whether every key so far was put at its position in the base: the base has each key once, so such a key is
  // new to this section without a lookup (the partitions come in the same order every cycle).
  let inOrder = baseKeys !== undefined;
  return {
    put(key, old, entry, stored = entry !== old) {
      if (inOrder && baseKeys![keys.length] === key) {
        size++;
        if (old !== undefined) kept++;
      } else if (entries[key] === undefined) {
        inOrder = false;
        size++;
        if (old !== undefined) kept++;
      } else {
        // A key put twice (a partition listed twice) counts once.
        inOrder = false;
        repeated = true;
      }
      entries[key] = entry;
      keys.push(key);
      values.push(entry);
      if (stored) {
        touched.push(key);
        touchedBefore.push(old);
        touchedAfter.push(entry);
      }
    },
    has(key) {
      return entries[key] !== undefined;
    },
    finish() {
      // The base's size from its own record; a base read from the store is counted once.
      const baseSize = made?.size ?? Object.keys(base).length;
      recorded.set(entries, {
        id: ++lastId,
        baseId: made?.id ?? 0,
        baseNow: made?.now ?? Number.NaN,
        now,
        touched,
        touchedBefore,
        touchedAfter,
        keys,
        entries: values,
        repeated,
        size,
        dropped: kept !== baseSize,
      });
      return entries;
    },
  };
}
