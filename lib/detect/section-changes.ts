/**
 * What a detector changed in one per-partition section of the memory (TASK_STALLED's marks,
 * MM2_POSITION_MOVED's marks, the sync markers), so the persister lists a cycle's changes from
 * the keys the detector touched instead of walking 100,000 keys (memory-persistence.ts). Kept beside
 * the section, keyed by the new section object, not in it: the memory stays plain JSON and the previous
 * one unchanged, and a section made any other way (read from the store, merged across shards) has no
 * record: it is walked whole.
 */
import type { MarkTable } from "./mark-columns";

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
  /**
   * The base's table and the section's, and the `i`th touched key's slot in each (valid unless `repeated`): the
   * persister compares their numbers, and makes an entry only to serialize it.
   */
  before: MarkTable;
  after: MarkTable;
  beforeSlots: readonly number[];
  afterSlots: readonly number[];
  /** Whether a key was put more than once (the slots are then read by key). */
  repeated: boolean;
  /** Keys in the section. */
  size: number;
  /** Whether a key of the base is not in the section. */
  dropped: boolean;
}

let lastId = 0;
const recorded = new WeakMap<object, SectionChanges>();

/** Records how a section (a columnar one, mark-columns.ts) was made from the previous cycle's; returns the id it gets. */
export function recordSectionChanges(section: object, changes: Omit<SectionChanges, "id">): number {
  const id = ++lastId;
  recorded.set(section, { ...changes, id });
  return id;
}

/** The record of how `section` was made, when a builder made it (mark-columns.ts). */
export function readSectionChanges(section: object): SectionChanges | undefined {
  return recorded.get(section);
}
